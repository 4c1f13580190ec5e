package pgbench

import (
	"bytes"
	"strings"
	"testing"
)

// TestSummaryOfRunWithoutTransactions: a run whose clients all aborted
// prints pgbench's parameters and counts, with PostgreSQL's printf "NaN" for 0/0, and
// stops before the latencies.
func TestSummaryOfRunWithoutTransactions(t *testing.T) {
	o := parseOK(t, "-c 2 -t 5 -b select-only", nil)
	var out bytes.Buffer
	WriteSummary(&out, &Results{Options: o, Table: TableInfo{Scale: 1}, Scripts: make([]ScriptStats, 1), BenchDurationUs: 1000})
	want := `transaction type: <builtin: select only>
scaling factor: 1
query mode: simple
number of clients: 2
number of threads: 1
maximum number of tries: 1
number of transactions per client: 5
number of transactions actually processed: 0/10
number of failed transactions: 0 (NaN%)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if got := cfmt("%.3f|%8.1f|%f", 0.0/zero(), 1/zero(), -1/zero()); got != "NaN|Infinity|-Infinity" {
		t.Errorf("cfmt = %q", got)
	}
	if strings.Contains(VersionLine("15.18", "16.4"), "server 16.4") == false {
		t.Error("VersionLine does not name a different server")
	}
}

func zero() float64 { return 0 }
