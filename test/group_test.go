package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/store"
)

// groupPartOut is what 'tpcc run --json' prints that the group test reads.
type groupPartOut struct {
	TpmC  float64 `json:"tpmc"`
	RunID string  `json:"run_id"`
	Check *struct {
		Passed bool `json:"passed"`
	} `json:"check"`
}

// groupView is the part of 'pgoltp report GROUP --format json' the test reads.
type groupView struct {
	Status string `json:"status"`
	Window struct {
		From float64 `json:"from_s"`
		To   float64 `json:"to_s"`
	} `json:"window"`
	Rate *struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
	} `json:"rate"`
	Latency []struct {
		Type string  `json:"type"`
		P99  float64 `json:"p99_ms"`
	} `json:"latency"`
	Lines []struct {
		Part   int    `json:"part"`
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	} `json:"part_lines"`
	Audits []struct {
		Name      string
		Count, Of int64
		Status    string
	} `json:"audits"`
	Notes []string `json:"notes"`
}

// TestTpccGroupOfThreeParts: three 'tpcc run --group g --part k/3' processes
// drive one database (three warehouses, one each), meeting in the lab's
// results store. Part 3 is killed mid-run. The group's report shows part 3
// dead; its tpmC is the sum of the surviving parts' over the common window;
// its p99 is the p99 of the union of the parts' stored latencies (an exact
// merge); and the consistency check ran once, by the last part to finish,
// and passed. 'pgoltp runs' shows the group as one line.
func TestTpccGroupOfThreeParts(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := labDir(t)
	bin := pgoltpBinary(t)
	// The load is split too: three processes, one warehouse each; the last
	// to finish builds the indexes and marks the load complete.
	var loads [3]result
	var lwg sync.WaitGroup
	for i := range loads {
		lwg.Add(1)
		go func() {
			defer lwg.Done()
			loads[i] = runBinary(bin, 10*time.Minute, "--dsn", dsn, "tpcc", "load", "--warehouses", "3", "--seed", "7", "--part", fmt.Sprintf("%d/3", i+1))
		}()
	}
	lwg.Wait()
	finishers := 0
	for i, r := range loads {
		if r.code != 0 {
			t.Fatalf("load part %d: exit %d: %s", i+1, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "the load is complete") {
			finishers++
		}
	}
	if finishers != 1 {
		t.Fatalf("%d load parts finished the load, want 1: %+v", finishers, loads)
	}

	// Bad input ends in one line before anything is stored.
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "--lab", lab, "tpcc", "run", "--group", "g", "--part", "4/3"), "--part 4/3")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "--lab", lab, "tpcc", "run", "--group", "a b", "--part", "1/2"), "--group")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "--lab", lab, "tpcc", "run", "--part", "1/2"), "--group")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "--lab", lab, "tpcc", "run", "--group", "g", "--part", "1/4"), "at most 3 parts")

	args := func(k string) []string {
		return []string{"--dsn", dsn, "--lab", lab, "--json", "tpcc", "run", "--group", "g", "--part", k + "/3",
			"--conns", "2", "--ramp", "1s", "--duration", "8s", "--progress", "0"}
	}
	var wg sync.WaitGroup
	var outs [2]result
	for i, k := range []string{"1", "2"} {
		wg.Add(1)
		go func() { defer wg.Done(); outs[i] = runBinary(bin, 5*time.Minute, args(k)...) }()
	}
	victim := exec.Command(bin, args("3")...)
	var victimErr bytes.Buffer
	victim.Stderr = &victimErr
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	waitPartRunning(t, lab, 3)
	time.Sleep(2 * time.Second) // well into its measurement (ramp 1s)
	_ = victim.Process.Kill()
	_ = victim.Wait()
	wg.Wait()

	var parts [2]groupPartOut
	checks := 0
	for i, r := range outs {
		if r.code != 0 {
			t.Fatalf("part %d: exit %d: %s", i+1, r.code, r.stderr)
		}
		if err := json.Unmarshal([]byte(r.stdout), &parts[i]); err != nil {
			t.Fatalf("part %d --json: %v\n%s", i+1, err, r.stdout)
		}
		if c := parts[i].Check; c != nil {
			checks++
			if !c.Passed {
				t.Errorf("part %d: the consistency check failed", i+1)
			}
		}
	}
	if checks != 1 {
		t.Fatalf("%d parts ran the consistency check, want exactly one (the last to finish)", checks)
	}

	r := runPgoltp(t, time.Minute, "--lab", lab, "report", "g", "--format", "json")
	if r.code != 0 {
		t.Fatalf("report g: exit %d: %s", r.code, r.stderr)
	}
	var v groupView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("report g --format json: %v\n%s", err, r.stdout)
	}
	if v.Status != "partial" || len(v.Lines) != 3 || v.Lines[2].Status != "dead" {
		t.Fatalf("group %s with parts %+v: want partial, part 3 dead", v.Status, v.Lines)
	}
	if !strings.Contains(strings.Join(v.Notes, "\n"), "consistency check") {
		t.Errorf("group notes do not carry the consistency check: %q", v.Notes)
	}

	// Throughput: the parts measured the same window (they started together
	// and ran as long), so the sum over the common window is the sum of the
	// parts' own tpmC, up to each part's last partial second and the drained
	// Deliveries that its own figure counts (10% covers them in 8 s).
	if v.Rate == nil || v.Rate.Name != "tpmC" {
		t.Fatalf("group rate %+v, want tpmC", v.Rate)
	}
	sum := parts[0].TpmC + parts[1].TpmC
	if math.Abs(v.Rate.Value-sum) > 0.10*sum || v.Window.To-v.Window.From < 6 {
		t.Errorf("group tpmC %.1f over window %.2f..%.2f s, parts' own tpmC sum to %.1f", v.Rate.Value, v.Window.From, v.Window.To, sum)
	}

	// Latency: the p99 of the union of both parts' stored New-Order
	// latencies, built here value by value from their histograms.
	st, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	union := metrics.NewHistogram()
	var partP99 []int64
	audits := map[string][2]int64{} // the parts' audits summed here
	for _, p := range parts {
		run, err := st.Load(context.Background(), p.RunID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range run.Tallies {
			s := audits[tl.Name]
			audits[tl.Name] = [2]int64{s[0] + tl.Count, s[1] + tl.Of}
		}
		h := hdrhistogram.Import(run.Latency["new_order"])
		partP99 = append(partP99, h.ValueAtQuantile(99))
		for _, bar := range h.Distribution() {
			if bar.Count > 0 {
				_ = union.RecordValues(bar.From, bar.Count)
			}
		}
	}
	want := float64(union.ValueAtQuantile(99)) / 1000
	got := -1.0
	for _, l := range v.Latency {
		if l.Type == "new_order" {
			got = l.P99
		}
	}
	if got != want {
		t.Errorf("group New-Order p99 %v ms, want %v ms: the p99 of the union (the parts' own p99s %v µs)", got, want, partP99)
	}

	// Audits over all parts: each the sum of the parts' counts.
	if len(v.Audits) == 0 || len(v.Audits) != len(audits) {
		t.Errorf("group audits %+v, parts' audits %v", v.Audits, audits)
	}
	for _, a := range v.Audits {
		if want := audits[a.Name]; a.Count != want[0] || a.Of != want[1] {
			t.Errorf("group audit %s: %d of %d, want the parts' sum %d of %d", a.Name, a.Count, a.Of, want[0], want[1])
		}
	}

	r = runPgoltp(t, time.Minute, "--lab", lab, "runs", "--format", "json")
	var runs []struct{ ID, Status string }
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil || r.code != 0 {
		t.Fatalf("runs: exit %d, %v: %s", r.code, err, r.stderr)
	}
	if len(runs) != 1 || runs[0].ID != "g" || runs[0].Status != "partial" {
		t.Errorf("runs %+v: want the group as one line, partial", runs)
	}
	r = runPgoltp(t, time.Minute, "--lab", lab, "report", "g")
	if r.code != 0 || !strings.Contains(r.stdout, "3/3") || !strings.Contains(r.stdout, "dead") || !strings.Contains(r.stdout, "tpmC") {
		t.Errorf("report g (text): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// waitPartRunning waits until part k of group g says running in the lab's
// results store.
func waitPartRunning(t *testing.T, lab string, k int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if st, err := store.Open(context.Background(), lab, ""); err == nil {
			_, parts, err := st.Group(context.Background(), "g")
			st.Close()
			for _, p := range parts {
				if err == nil && p.Part == k && p.Status == "running" {
					return
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("part %d never started running", k)
}
