package pgbench

import (
	"fmt"
	"io"
	"strings"
)

// Builtin is one of pgbench's built-in scripts.
type Builtin struct {
	Name string // for -b, by unambiguous prefix
	Desc string // what the summary's "transaction type:" shows
	Text string // the script, as --show-script prints it
}

// Builtins are pgbench's scripts, word for word (naccounts 100000, nbranches
// 1, ntellers 10 per scale unit).
var Builtins = []Builtin{
	{"tpcb-like", "<builtin: TPC-B (sort of)>", tpcbHead +
		"UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n" +
		"UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n" +
		tpcbTail},
	{"simple-update", "<builtin: simple update>", tpcbHead + tpcbTail},
	{"select-only", "<builtin: select only>",
		"\\set aid random(1, 100000 * :scale)\n" +
			"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"},
}

const tpcbHead = "\\set aid random(1, 100000 * :scale)\n" +
	"\\set bid random(1, 1 * :scale)\n" +
	"\\set tid random(1, 10 * :scale)\n" +
	"\\set delta random(-5000, 5000)\n" +
	"BEGIN;\n" +
	"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n" +
	"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"

const tpcbTail = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n" +
	"END;\n"

// listBuiltins prints what "-b list" prints (on stderr, as pgbench does).
func listBuiltins(w io.Writer) {
	fmt.Fprintln(w, "Available builtin scripts:")
	for _, b := range Builtins {
		fmt.Fprintf(w, "  %13s: %s\n", b.Name, b.Desc)
	}
	fmt.Fprintln(w)
}

// findBuiltin finds a built-in script by a prefix of its name; none or
// several is pgbench's error, followed by the list, and exit 1.
func findBuiltin(log logger, name string) (Builtin, error) {
	var found []Builtin
	for _, b := range Builtins {
		if strings.HasPrefix(b.Name, name) {
			found = append(found, b)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	if len(found) == 0 {
		log.error("no builtin script found for name \"%s\"", name)
	} else {
		log.error("ambiguous builtin name: %d builtin scripts found for prefix \"%s\"", len(found), name)
	}
	listBuiltins(log.w)
	return Builtin{}, &Exit{Code: 1}
}
