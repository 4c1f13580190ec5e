package tpcb

import (
	"fmt"
	"strings"
)

// Script is one of pgbench's built-in scripts (pgbench -b NAME).
type Script string

const (
	ScriptTPCB         Script = "tpcb-like"     // the default: five statements in a transaction
	ScriptSimpleUpdate Script = "simple-update" // -N: no tellers/branches updates
	ScriptSelectOnly   Script = "select-only"   // -S: one SELECT, no transaction block
)

// Scripts lists the built-in scripts.
var Scripts = []Script{ScriptTPCB, ScriptSimpleUpdate, ScriptSelectOnly}

// variable is one of the script's \set variables.
type variable int

const (
	varAid variable = iota
	varBid
	varTid
	varDelta
	numVars
)

var varNames = [numVars]string{"aid", "bid", "tid", "delta"}

// statement is one SQL command of a script, kept as the literal parts
// around its variables so that it can be sent as pgbench shows it (simple
// protocol, values inlined) or with $n parameters (extended, prepared).
type statement struct {
	name  string     // short name: the latency series' kind
	parts []string   // len(vars)+1 literal parts
	vars  []variable // the variables between the parts
}

// text is the statement as pgbench prints it, with :variables.
func (s statement) text() string {
	return s.join(func(i int) string { return ":" + varNames[s.vars[i]] }) + ";"
}

func (s statement) join(arg func(int) string) string {
	var b strings.Builder
	for i, p := range s.parts {
		b.WriteString(p)
		if i < len(s.vars) {
			b.WriteString(arg(i))
		}
	}
	return b.String()
}

func stmt(name string, parts []string, vars ...variable) statement {
	return statement{name: name, parts: parts, vars: vars}
}

// The statements of pgbench's built-in scripts (pgbench.c, builtin_script).
var (
	stmtBegin = stmt("begin", []string{"BEGIN"})
	stmtEnd   = stmt("end", []string{"END"})
	stmtUpdAc = stmt("update_accounts", []string{"UPDATE pgbench_accounts SET abalance = abalance + ", " WHERE aid = ", ""}, varDelta, varAid)
	stmtSelAc = stmt("select_accounts", []string{"SELECT abalance FROM pgbench_accounts WHERE aid = ", ""}, varAid)
	stmtUpdTe = stmt("update_tellers", []string{"UPDATE pgbench_tellers SET tbalance = tbalance + ", " WHERE tid = ", ""}, varDelta, varTid)
	stmtUpdBr = stmt("update_branches", []string{"UPDATE pgbench_branches SET bbalance = bbalance + ", " WHERE bid = ", ""}, varDelta, varBid)
	stmtInsHi = stmt("insert_history", []string{"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (", ", ", ", ", ", ", ", CURRENT_TIMESTAMP)"}, varTid, varBid, varAid, varDelta)
)

// scriptDef is a built-in script: its pgbench description and statements.
type scriptDef struct {
	desc  string
	stmts []statement
	// writes says whether the script inserts history and moves balances;
	// tellers says whether it also updates tellers and branches.
	writes, tellers bool
}

func (s Script) def() (scriptDef, error) {
	switch s {
	case ScriptTPCB, "":
		return scriptDef{"<builtin: TPC-B (sort of)>",
			[]statement{stmtBegin, stmtUpdAc, stmtSelAc, stmtUpdTe, stmtUpdBr, stmtInsHi, stmtEnd}, true, true}, nil
	case ScriptSimpleUpdate:
		return scriptDef{"<builtin: simple update>",
			[]statement{stmtBegin, stmtUpdAc, stmtSelAc, stmtInsHi, stmtEnd}, true, false}, nil
	case ScriptSelectOnly:
		return scriptDef{"<builtin: select only>", []statement{stmtSelAc}, false, false}, nil
	}
	return scriptDef{}, fmt.Errorf("unknown script %q: must be tpcb-like, simple-update or select-only", string(s))
}

// ReadOnly says the script only reads: its transactions may run on a
// standby.
func (s Script) ReadOnly() bool { return s == ScriptSelectOnly }

// setLines are the script's \set commands as pgbench prints them.
func (d scriptDef) setLines() []string { return d.sets(space{}) }

// sets are the \set commands drawing from sp: pgbench's, or with a part's
// branches (--part) its own range of bid.
func (d scriptDef) sets(sp space) []string {
	if len(d.stmts) == 1 {
		return []string{`\set aid random(1, 100000 * :scale)`}
	}
	bid := `\set bid random(1, 1 * :scale)`
	if sp.bidFirst > 0 && sp.bidCount != BranchesPerScale*sp.scale {
		bid = fmt.Sprintf(`\set bid random(%d, %d)`, sp.bidFirst, sp.bidFirst+sp.bidCount-1)
	}
	return []string{
		`\set aid random(1, 100000 * :scale)`,
		bid,
		`\set tid random(1, 10 * :scale)`,
		`\set delta random(-5000, 5000)`,
	}
}

// script is the script's text for pgbench's engine, drawing from sp.
func (d scriptDef) script(sp space) string {
	lines := d.sets(sp)
	for _, s := range d.stmts {
		lines = append(lines, s.text())
	}
	return strings.Join(lines, "\n") + "\n"
}

// space is what the clients draw from: the scale, and the branches of this
// process (all of them, or a part's range with --part: accounts and
// tellers are still drawn from the whole database, as pgbench draws them
// independently of the branch).
type space struct {
	scale              int64
	bidFirst, bidCount int64
}

// wholeSpace draws every branch of scale, as pgbench does.
func wholeSpace(scale int64) space {
	return space{scale: scale, bidFirst: 1, bidCount: BranchesPerScale * scale}
}
