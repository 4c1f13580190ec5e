package pgbench

import (
	"bytes"
	"strings"
	"testing"
)

func parseOK(t *testing.T, line string, env map[string]string) *Options {
	t.Helper()
	var stderr bytes.Buffer
	o, err := Parse(splitArgs(line), Env{Stdin: strings.NewReader(""), Stdout: &stderr, Stderr: &stderr,
		Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatalf("pgbench %s: %v: %s", line, err, stderr.String())
	}
	return o
}

// TestParseReadsPgbenchCommandLines: attached values, bundles, long options
// with '=' and abbreviated, permutation, "--", PG* environment, -d both ways.
func TestParseReadsPgbenchCommandLines(t *testing.T) {
	o := parseOK(t, "-c8 -j 16 mydb --trans=5 -nMprepared -b select@3 -f - -D x=1 -D x=2 -Dy=3", nil)
	if o.Clients != 8 || o.Jobs != 8 || o.DBName != "mydb" || o.Transactions != 5 || !o.NoVacuum || o.QueryMode != "prepared" {
		t.Errorf("got %+v", o)
	}
	if len(o.Scripts) != 2 || o.Scripts[0].Weight != 3 || o.Scripts[0].Desc != "<builtin: select only>" || o.Scripts[1].Desc != "-" || !o.PerScriptStats {
		t.Errorf("scripts %+v", o.Scripts)
	}
	if len(o.Vars) != 2 || o.Vars[0] != (Var{"x", "2"}) || o.Vars[1] != (Var{"y", "3"}) {
		t.Errorf("vars %+v", o.Vars)
	}
	o = parseOK(t, "-i -s 3 -- -weird", nil)
	if !o.Init || o.DBName != "-weird" || o.InitSteps != "dtgvp" || o.Scale != 3 {
		t.Errorf("got %+v", o)
	}
	o = parseOK(t, "-i -n --foreign-keys --partitions=4", nil)
	if o.InitSteps != "dtg pf" || o.PartitionMethod != "range" {
		t.Errorf("-n --foreign-keys: steps %q method %q", o.InitSteps, o.PartitionMethod)
	}
	o = parseOK(t, "-T 10", map[string]string{"PGDATABASE": "envdb", "PGUSER": "u"})
	if o.DBName != "envdb" || o.Transactions != 0 || o.Duration != 10 || o.Scripts[0].Desc != "<builtin: TPC-B (sort of)>" {
		t.Errorf("got %+v", o)
	}
	if o = parseOK(t, "-t 1", map[string]string{"PGUSER": "u"}); o.DBName != "u" {
		t.Errorf("PGUSER: dbname %q", o.DBName)
	}
	if o = parseOK(t, "-d mydb -t 1", nil); o.DBName != "mydb" || o.Debug {
		t.Errorf("-d mydb (17): dbname %q debug %v", o.DBName, o.Debug)
	}
	if o = parseOK(t, "-d --verbose-errors -t 1 x", nil); o.DBName != "x" || !o.Debug || !o.VerboseErrors {
		t.Errorf("-d (15 debug): %+v", o)
	}
	if o = parseOK(t, "--dbname=a --debug --exit-on-abort -t 1", nil); o.DBName != "a" || !o.Debug || !o.ExitOnAbort {
		t.Errorf("17's options: %+v", o)
	}
}

// TestShowScriptIsPgbenchText pins the built-in scripts' text.
func TestShowScriptIsPgbenchText(t *testing.T) {
	var out bytes.Buffer
	_, err := Parse([]string{"--show-script=select-only"}, Env{Stderr: &out, Getenv: func(string) string { return "" }})
	want := "-- select-only: <builtin: select only>\n\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\n"
	if e, ok := err.(*Exit); !ok || e.Code != 0 || out.String() != want {
		t.Errorf("got %v %q", err, out.String())
	}
}
