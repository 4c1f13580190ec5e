package study

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/collect"
)

func TestTranslate(t *testing.T) {
	cases := []struct {
		major       int
		name, value string
		wantName    string
		wantValue   string
		noted       bool
	}{
		{10, "wal_keep_size", "64MB", "wal_keep_segments", "4", true},
		{12, "wal_keep_size", "1GB", "wal_keep_segments", "64", true},
		{12, "wal_keep_size", "20MB", "wal_keep_segments", "2", true}, // rounded up: keep at least as much
		{13, "wal_keep_size", "64MB", "wal_keep_size", "64MB", false},
		{15, "wal_keep_segments", "8", "wal_keep_size", "128MB", true},
		{11, "wal_keep_segments", "8", "wal_keep_segments", "8", false},
		{10, "jit", "off", "", "", true}, // PostgreSQL 10 has no jit
		{11, "vacuum_cost_delay", "2.4", "vacuum_cost_delay", "2", true},
		{12, "vacuum_cost_delay", "2.4", "vacuum_cost_delay", "2.4", false},
		{17, "shared_buffers", "256MB", "shared_buffers", "256MB", false},
		{16, "enable_seqscan", "off", "enable_seqscan", "off", true}, // not in the catalog: the server checks it
	}
	for _, c := range cases {
		got, err := Translate(c.major, c.name, c.value)
		if err != nil {
			t.Errorf("%d %s=%s: %v", c.major, c.name, c.value, err)
			continue
		}
		if got.Name != c.wantName || got.Value != c.wantValue || (got.Note != "") != c.noted {
			t.Errorf("%d %s=%s: got %s=%s (%q), want %s=%s noted=%v", c.major, c.name, c.value, got.Name, got.Value, got.Note, c.wantName, c.wantValue, c.noted)
		}
	}
	for _, bad := range [][2]string{{"shared_buffers", "lots"}, {"wal_keep_size", "x"}, {"fsync", "off"}, {"synchronous_commit", "off"}} {
		if _, err := Translate(15, bad[0], bad[1]); err == nil {
			t.Errorf("%s=%s accepted", bad[0], bad[1])
		}
	}
	// Refused settings are refused on every major, in the catalog or not
	// (those outside it used to be passed on unchecked).
	for _, refused := range [][2]string{{"listen_addresses", "*"}, {"archive_command", "touch pwned_%f"}, {"port", "1"},
		{"jit_provider", "llvmjit"}, {"Shared_Preload_Libraries", "auto_explain"}, {"log_directory", "/tmp"}} {
		for _, major := range []int{10, 15, 18} {
			if _, err := Translate(major, refused[0], refused[1]); err == nil || !strings.Contains(err.Error(), "never sets") {
				t.Errorf("%d %s=%s: %v, want a refusal", major, refused[0], refused[1], err)
			}
		}
	}
}

func TestCompare(t *testing.T) {
	stmt := func(q string, calls int64, ms float64) collect.Statement {
		return collect.Statement{Query: q, Calls: calls, TotalMs: ms}
	}
	runs := []Run{
		{Major: 10, Version: "10.23", RunID: "a", Txns: 1000, TPS: 100, P50: 1, P95: 2, P99: 3,
			Effect:     Snapshot{WALBytes: 500000, DBBytes: 2e6, IndexBytes: 1e6, Updates: 3000, HotUpdates: 1500, Autovacuums: 2, Checkpoints: 1, DeadTuples: 50},
			Statements: []collect.Statement{stmt("UPDATE  x", 100, 30), stmt("SELECT y", 100, 10)}},
		{Major: 18, Version: "18.6", RunID: "b", Txns: 2000, TPS: 200, P50: 0.5, P95: 1, P99: 2,
			Effect:     Snapshot{WALBytes: 800000, DBBytes: 2e6, Updates: 6000, HotUpdates: 6000},
			Statements: []collect.Statement{stmt("UPDATE x", 200, 20)}},
		{Major: 10, Version: "10.23", RunID: "c", Txns: 1000, TPS: 120, P50: 1, P95: 2, P99: 3,
			Effect: Snapshot{WALBytes: 700000, DBBytes: 2e6, IndexBytes: 1e6, Updates: 3000, HotUpdates: 1500}},
	}
	c := Compare("tpcb", nil, runs)
	if len(c.Majors) != 2 || c.Majors[0].Major != 10 || c.Majors[1].Major != 18 {
		t.Fatalf("majors %+v", c.Majors)
	}
	fig := func(m int, name string) Figure {
		for _, f := range c.Majors[m].Figures {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no figure %s", name)
		return Figure{}
	}
	if f := fig(0, "throughput"); f.Mean != 110 || !f.HasCI || !(f.Low < 110 && f.High > 110) || f.N != 2 {
		t.Errorf("PG 10 throughput %+v", f)
	}
	// 95% interval of {100, 120}: 110 ± t(0.975, 1) × 10 = 110 ± 127.06.
	if f := fig(0, "throughput"); math.Abs(f.High-110-127.062) > 0.01 {
		t.Errorf("PG 10 throughput interval %v..%v, want 110 ± 127.06", f.Low, f.High)
	}
	if f := fig(1, "throughput"); f.HasCI || f.N != 1 {
		t.Errorf("one run has no interval: %+v", f)
	}
	if f := fig(0, "WAL per transaction"); f.Mean != 600 {
		t.Errorf("WAL per transaction %v, want (500+700)/2", f.Mean)
	}
	if f := fig(0, "database growth"); f.Mean != 2000 {
		t.Errorf("database growth %v MB per 1M txn, want 2000 (2 MB per 1000 txn)", f.Mean)
	}
	if f := fig(1, "HOT updates"); f.Mean != 100 {
		t.Errorf("HOT share %v, want 100", f.Mean)
	}
	// Runs a and c: 50% HOT each, so no spread; dead tuples 50 and 0: the
	// interval of the mean, 25 ± 317.7, stops at zero tuples.
	if f := fig(0, "dead tuples after"); f.Low != 0 || math.Abs(f.High-25-317.66) > 0.01 {
		t.Errorf("PG 10 dead tuples interval %v..%v, want 0 .. 25+317.66", f.Low, f.High)
	}
	if len(c.Statements) != 2 || c.Statements[0].Query != "UPDATE x" {
		t.Fatalf("statements %+v", c.Statements)
	}
	if s := c.Statements[0]; s.MeanMs["10"] != 0.3 || s.MeanMs["18"] != 0.1 || s.Share["10"] != 75 {
		t.Errorf("UPDATE x side by side: %+v", s)
	}
	if _, ok := c.Statements[1].Calls["18"]; ok {
		t.Error("SELECT y did not run on 18 but has a figure there")
	}
	var b bytes.Buffer
	c.WriteText(&b)
	for _, want := range []string{"PG 10.23 (2 runs)", "PG 18.6 (1 runs)", "WAL per transaction", "HOT updates", "checkpoints", "autovacuum runs", "UPDATE x"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, b.String())
		}
	}
}

// A share's interval stops at 100%: two runs at 99.2% and 100% HOT updates
// have a mean of 99.6% and a t interval reaching past 100.
func TestIntervalWithinBounds(t *testing.T) {
	f := summarize("HOT updates", "% of updates", []float64{99.2, 100}, 0, 100)
	if f.High != 100 || f.Low >= 99.2 || math.Abs(f.Mean-99.6) > 1e-9 {
		t.Errorf("HOT updates %v [%v, %v], want 99.6 [below 99.2, 100]", f.Mean, f.Low, f.High)
	}
	if g := summarize("index growth", "MB per 1M txn", []float64{-0.1, 0.2}, math.Inf(-1), math.Inf(1)); g.Low >= -0.1 {
		t.Errorf("an unbounded figure's interval was cut: %v..%v", g.Low, g.High)
	}
}

// Builds of one major are summarised by build, not folded into one major,
// and each build's verdict against the first names it: o3 at 110 and 112
// txn/s against 100 and 101 is faster, with an interval above zero.
func TestCompareBuilds(t *testing.T) {
	runs := []Run{
		{Major: 15, Build: "default", Version: "15.18", RunID: "a", Txns: 1000, TPS: 100},
		{Major: 15, Build: "o3", Version: "15.18", RunID: "b", Txns: 1000, TPS: 110},
		{Major: 15, Build: "default", Version: "15.18", RunID: "c", Txns: 1000, TPS: 101},
		{Major: 15, Build: "o3", Version: "15.18", RunID: "d", Txns: 1000, TPS: 112},
	}
	c := Compare("tpcc", nil, runs)
	if len(c.Majors) != 2 || c.Majors[0].Build != "default" || c.Majors[1].Build != "o3" || len(c.Majors[1].RunIDs) != 2 {
		t.Fatalf("summaries %+v, want default and o3 with two runs each", c.Majors)
	}
	if len(c.Verdicts) != 1 {
		t.Fatalf("verdicts %+v", c.Verdicts)
	}
	v := c.Verdicts[0]
	if v.Arm != "build o3" || v.Against != "build default" || v.Says != "faster" || v.Low <= 0 || math.Abs(v.Change-100*(111-100.5)/100.5) > 1e-9 {
		t.Errorf("verdict %+v, want build o3 faster than build default by 10.4%%", v)
	}
	var b bytes.Buffer
	c.WriteText(&b)
	for _, want := range []string{"PostgreSQL builds compared", "build o3 (2 runs)", "build default", "faster"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
