package recorder_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/pgtest/pgbench"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/store"
)

// TestInterruptedRunIsStoredWhole is Ctrl-C in the middle of a run: the
// context is cancelled, the workload stops, and Finish (called with the
// cancelled context) still stores the whole run, marked interrupted, with what
// the collectors saw until then.
func TestInterruptedRunIsStoredWhole(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := t.TempDir()
	if _, err := pgbench.Run(context.Background(), dsn, pgbench.Options{Seconds: 1}); err != nil {
		t.Fatal(err) // initializes the tables
	}
	ctx, interrupt := context.WithCancel(context.Background())
	run := &store.Run{Workload: "pgbench", Title: "interrupted", Params: []store.KV{{Name: "duration", Value: "60s"}}}
	rec, err := recorder.Begin(ctx, lab, "", dsn, run, collect.Options{Interval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(3*time.Second, interrupt)
	res, _ := pgbench.Run(ctx, dsn, pgbench.Options{Seconds: 60, Clients: 2, NoInit: true, Start: run.StartedAt})
	if ctx.Err() == nil {
		t.Fatal("pgbench finished before the interrupt")
	}
	run.Series, run.Latency = res.Series, res.Latency
	id, err := rec.Finish(ctx, store.Interrupted)
	if err != nil {
		t.Fatalf("Finish after Ctrl-C: %v", err)
	}
	s, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.Interrupted {
		t.Errorf("status %s, want interrupted", got.Status)
	}
	if d := got.Duration(); d < 2*time.Second || d > 30*time.Second {
		t.Errorf("stored duration %v, want about 3 s", d)
	}
	if got.Samples == nil || got.Samples.Cost.Ticks < 4 || len(got.Samples.Points) == 0 {
		t.Fatalf("collector samples not stored: %+v", got.Samples)
	}
	if len(got.Samples.Statements) == 0 || len(got.Samples.Tables) == 0 {
		t.Errorf("after-snapshots missing after an interrupt: %d statements, %d tables", len(got.Samples.Statements), len(got.Samples.Tables))
	}
	if got.Param("duration") != "60s" {
		t.Errorf("parameters lost: %v", got.Params)
	}
}

// TestIntervalsFromDriverSeries converts a driver's per-second series into
// stored intervals on the run's time axis.
func TestIntervalsFromDriverSeries(t *testing.T) {
	rec := metrics.NewRecorder([]string{"new_order", "payment"}, "errors", "retries")
	start := time.Now()
	series := metrics.NewSeries(rec, start)
	local := rec.NewLocal()
	for sec := range 3 {
		for i := range 10 * (sec + 1) {
			local.Record(0, time.Duration(1+i)*time.Millisecond)
		}
		local.Record(1, 2*time.Millisecond)
		local.Add(0, 0, int64(sec)) // errors of new_order
		snap := rec.Interval()
		snap.Start, snap.End = start.Add(time.Duration(sec)*time.Second), start.Add(time.Duration(sec+1)*time.Second)
		series.Add(snap, true)
	}
	got := recorder.Intervals(series, start.Add(-2*time.Second), "errors")
	if len(got) != 6 {
		t.Fatalf("%d intervals, want 6", len(got))
	}
	for _, tc := range []struct {
		i      int
		second int
		typ    string
		count  int64
		errors int64
	}{
		{0, 2, "new_order", 10, 0},
		{1, 2, "payment", 1, 0},
		{4, 4, "new_order", 30, 2},
	} {
		iv := got[tc.i]
		if iv.Second != tc.second || iv.Type != tc.typ || iv.Count != tc.count || iv.Errors != tc.errors || iv.Length != 1 {
			t.Errorf("interval %d = %+v, want second %d %s count %d errors %d", tc.i, iv, tc.second, tc.typ, tc.count, tc.errors)
		}
	}
	if p := got[4].P95; p < 25_000 || p > 30_100 {
		t.Errorf("p95 of 1..30 ms = %v µs", p)
	}
}

// recordAndHang is the child of TestKilledRecording: it begins a recording,
// says its id, and samples until it is killed.
func recordAndHang() {
	run := &store.Run{Workload: "tpcc", Title: "killed", Params: []store.KV{{Name: "warehouses", Value: "1"}}}
	_, err := recorder.Begin(context.Background(), os.Getenv("PGOLTP_RECORD_LAB"), "", os.Getenv("PGOLTP_RECORD_DSN"), run,
		collect.Options{Interval: 100 * time.Millisecond})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(run.ID)
	select {}
}

// TestKilledRecording is a crash of pgoltp itself during a run (SIGKILL, no
// chance to clean up): the run stays stored, is listed as incomplete, keeps
// the samples and the checkpoints flushed before the kill, and its report
// renders and says so.
func TestKilledRecording(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	lab := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PGOLTP_RECORD_CHILD=1", "PGOLTP_RECORD_LAB="+lab, "PGOLTP_RECORD_DSN="+dsn)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error") {
		cmd.Process.Kill()
		t.Fatalf("child: %q %v", line, err)
	}
	id := strings.TrimSpace(line)
	defer cmd.Process.Kill()
	// The collector's first tick is the reference its checkpoint counters
	// start from: a CHECKPOINT before it is no event. Wait until the child
	// has stored points (it ticked and flushed), then checkpoint, then wait
	// until the child has stored the event (waits, not sleeps: a loaded CI
	// machine under -race ticks late).
	waitStored(t, lab, id, "sampled points", func(r *store.Run) bool { return len(r.Samples.Points) > 0 })
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(context.Background(), "CHECKPOINT")
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waitStored(t, lab, id, "a checkpoint event", func(r *store.Run) bool { return checkpointsIn(r) > 0 })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	s, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != id || list[0].Status != store.Incomplete {
		t.Fatalf("runs after the kill: %+v, want %s incomplete", list, id)
	}
	run, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Samples == nil || len(run.Samples.Points) == 0 {
		t.Fatal("the samples flushed before the kill are gone")
	}
	if checkpointsIn(run) == 0 {
		t.Errorf("the checkpoint taken during the run is gone after the kill (events %+v)", run.Samples.Events)
	}
	if run.Param("warehouses") != "1" {
		t.Errorf("parameters stored at Begin are gone: %v", run.Params)
	}
	var buf bytes.Buffer
	if err := report.HTML(&buf, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "never finished") || !strings.Contains(buf.String(), `aria-label="CPU (% of all cores)"`) {
		t.Error("the report of the killed run does not say it never finished, or lacks its samples")
	}
}

// waitStored waits up to 30 s until the running run id in lab's store
// satisfies ok, and fails the test naming what never came.
func waitStored(t *testing.T, lab, id, what string, ok func(*store.Run) bool) {
	t.Helper()
	s, err := store.Open(context.Background(), lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := s.Load(context.Background(), id)
		if err == nil && r.Samples != nil && ok(r) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running recording never stored %s (last error: %v)", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkpointsIn counts the checkpoint events stored with r.
func checkpointsIn(r *store.Run) int {
	n := 0
	if r.Samples == nil {
		return 0
	}
	for _, e := range r.Samples.Events {
		if e.Kind == "checkpoint" {
			n++
		}
	}
	return n
}
