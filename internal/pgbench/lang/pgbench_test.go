package lang

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// realPgbench is the pgbench the comparisons run against: $PGBENCH, else the
// one pgtest finds (the test is skipped, saying so, when there is none).
func realPgbench(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PGBENCH"); p != "" {
		return p
	}
	return pgtest.Pgbench(t)
}

// runPgbench runs the real pgbench on script with args and returns its
// stderr and exit code.
func runPgbench(t *testing.T, bin, script string, args ...string) (string, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.sql")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return runPgbenchArgs(t, bin, append([]string{"-f", path}, args...)...)
}

// runPgbenchArgs runs the real pgbench with args and returns its stderr and
// exit code.
func runPgbenchArgs(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", bin, err)
	}
	return stderr.String(), code
}

// debugLines returns the "debug(...)" lines pgbench printed.
func debugLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "debug(") {
			out = append(out, l)
		}
	}
	return out
}

// testClient is one client's variables and generator, as an engine keeps
// them, for evaluating expressions the way pgbench does.
type testClient struct {
	vars    map[string]Value
	strs    map[string]string // set from text (-D): parsed on use
	rng     *PRNG
	command int
	debug   []string
}

func (c *testClient) Lookup(ref *Expr) (Value, error) {
	name := ref.Var
	if v, ok := c.vars[name]; ok {
		return v, nil
	}
	if s, ok := c.strs[name]; ok {
		return ParseValue(name, s)
	}
	return Value{}, evalErr("undefined variable \"%s\"", name)
}

func (c *testClient) RNG() *PRNG { return c.rng }

func (c *testClient) Debug(v Value) { c.debug = append(c.debug, DebugLine(0, c.command, v)) }

// newClients sets up clients as pgbench does for --random-seed=seed.
func newClients(seed uint64, n int, defines map[string]string) []*testClient {
	st := NewSeeds(seed).NewStreams(n, 1, defines["default_seed"] != "")
	cs := make([]*testClient, n)
	for i := range cs {
		cs[i] = &testClient{vars: map[string]Value{
			"scale": IntValue(1), "client_id": IntValue(int64(i)),
			"default_seed": IntValue(st.DefaultSeed), "random_seed": IntValue(int64(seed)),
		}, strs: map[string]string{}, rng: st.Clients[i]}
		for k, v := range defines {
			delete(cs[i].vars, k)
			cs[i].strs[k] = v
		}
	}
	return cs
}

// evalSets evaluates "\set name expr" lines in order for one client.
func (c *testClient) evalSets(t *testing.T, lines []string) {
	t.Helper()
	for i, l := range lines {
		name, src, _ := strings.Cut(strings.TrimPrefix(l, `\set `), " ")
		e, err := ParseExpr(src)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		c.command = i + 1
		v, err := Eval(e, c)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		c.vars[name] = v
	}
}

func setLines(exprs []string) []string {
	lines := make([]string, len(exprs))
	for i, e := range exprs {
		lines[i] = fmt.Sprintf(`\set v%d debug(%s)`, i, e)
	}
	return lines
}

// runStdout writes script to path and returns the real pgbench's stdout.
func runStdout(t *testing.T, bin, path, script string, args ...string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, append([]string{"-f", path}, args...)...).Output()
	if err != nil {
		t.Fatalf("pgbench: %v", err)
	}
	return string(out)
}
