package lang_test

import (
	"fmt"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// client is the part of an engine's client that expressions see.
type client struct {
	vars *lang.Vars
	rng  *lang.PRNG
}

func (c *client) Lookup(ref *lang.Expr) (lang.Value, error) { return c.vars.Lookup(ref.Var) }
func (c *client) RNG() *lang.PRNG                           { return c.rng }
func (c *client) Debug(v lang.Value)                        { fmt.Println(lang.DebugLine(0, 0, v)) }

// An engine parses the scripts, draws the generators in pgbench's order,
// then walks each script's commands: \set evaluates, \if jumps, SQL is sent
// with its variables substituted (-M simple) or bound ($n).
func Example() {
	script, err := lang.ParseScript("my.sql", `\set aid random(1, 100000 * :scale)
\if :aid > 50000
select abalance from pgbench_accounts where aid = :aid;
\else
\sleep 1 ms
\endif
`)
	if err != nil {
		fmt.Println("pgbench: error: " + err.Error())
		return
	}
	streams := lang.NewSeeds(42).NewStreams(1, 1, false)
	c := &client{vars: lang.NewVars(), rng: streams.Clients[0]}
	_ = c.vars.Set("startup", "scale", lang.IntValue(1))
	_ = c.vars.Set("startup", "default_seed", lang.IntValue(streams.DefaultSeed))
	for i := 0; i < len(script.Commands); i++ {
		cmd := script.Commands[i]
		switch cmd.Meta {
		case lang.MetaSet:
			v, _ := lang.Eval(cmd.Expr, c)
			_ = c.vars.Set("set", cmd.Var, v)
		case lang.MetaIf:
			if v, _ := lang.Eval(cmd.Expr, c); !v.Truth() {
				i = cmd.Jump // the \else: carry on after it
			}
		case lang.MetaElse:
			i = cmd.Endif
		case lang.MetaNone:
			fmt.Println(lang.Substitute(cmd.SQL, c.vars.Text))
			fmt.Println(cmd.ParamSQL, cmd.Params)
		}
	}
	// Output:
	// select abalance from pgbench_accounts where aid = 83532;
	// select abalance from pgbench_accounts where aid = $1; [aid]
}
