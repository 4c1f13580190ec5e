package store_test

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/pgtest/pgbench"
	"github.com/pgoltp/pgoltp/internal/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// backends opens an empty store of each kind: results.db in a lab directory,
// and the same schema in a PostgreSQL database (--results-dsn).
func backends(t *testing.T) map[string]func(t *testing.T) *store.Store {
	return map[string]func(t *testing.T) *store.Store{
		"sqlite": func(t *testing.T) *store.Store {
			s, err := store.Open(context.Background(), t.TempDir(), "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": func(t *testing.T) *store.Store {
			s, err := store.Open(context.Background(), "", pgtest.NewDatabase(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

// TestRoundTrip stores a real pgbench run with its collected samples and reads
// it back unchanged, on both backends.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	run, err := pgbench.Run(ctx, pgtest.NewDatabase(t), pgbench.Options{Seconds: 3, Clients: 2, Collector: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Series) == 0 || len(run.Latency) != 2 || run.Samples == nil || len(run.Samples.Points) == 0 {
		t.Fatalf("pgbench run too thin to test with: %d intervals, %d histograms", len(run.Series), len(run.Latency))
	}
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			r := *run
			r.ID = ""
			r.MeasureStart = r.StartedAt.Add(time.Second)
			id, err := s.Begin(ctx, &r)
			if err != nil {
				t.Fatal(err)
			}
			half, halfEvents := len(r.Samples.Points)/2, len(r.Samples.Events)/2
			if err := s.AppendSamples(ctx, id, r.Samples.Points[:half], r.Samples.Events[:halfEvents]); err != nil {
				t.Fatal(err)
			}
			mid, err := s.Load(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if mid.Status != store.Running || len(mid.Samples.Points) != half || len(mid.Samples.Events) != halfEvents || len(mid.Headline) != 0 {
				t.Fatalf("while running: status %s, %d points (want %d), %d events (want %d), %d figures",
					mid.Status, len(mid.Samples.Points), half, len(mid.Samples.Events), halfEvents, len(mid.Headline))
			}
			r.Status = store.Complete
			if err := s.Finish(ctx, &r); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != store.Complete || got.Workload != "pgbench" || !reflect.DeepEqual(got.Params, r.Params) || !reflect.DeepEqual(got.Headline, r.Headline) {
				t.Errorf("run header differs:\n got %+v %+v %+v\nwant %+v %+v", got.Status, got.Params, got.Headline, r.Params, r.Headline)
			}
			if !reflect.DeepEqual(got.Series, r.Series) {
				t.Errorf("series differ: got %d intervals, want %d", len(got.Series), len(r.Series))
			}
			for typ, snap := range r.Latency {
				want, have := hdrhistogram.Import(snap), got.Latency[typ]
				if have == nil || !want.Equals(hdrhistogram.Import(have)) {
					t.Errorf("histogram %s differs after the round trip", typ)
				}
			}
			gs, ws := got.Samples, r.Samples
			if len(gs.Points) != len(ws.Points) || len(gs.Settings) != len(ws.Settings) || len(gs.Tables) != len(ws.Tables) ||
				len(gs.Statements) != len(ws.Statements) || len(gs.Waits) != len(ws.Waits) || len(gs.Events) != len(ws.Events) {
				t.Errorf("samples differ: points %d/%d settings %d/%d tables %d/%d statements %d/%d waits %d/%d events %d/%d",
					len(gs.Points), len(ws.Points), len(gs.Settings), len(ws.Settings), len(gs.Tables), len(ws.Tables),
					len(gs.Statements), len(ws.Statements), len(gs.Waits), len(ws.Waits), len(gs.Events), len(ws.Events))
			}
			if gs.Cost.Ticks != ws.Cost.Ticks || gs.Cost.TickCPU.Microseconds() != ws.Cost.TickCPU.Microseconds() {
				t.Errorf("cost differs: %+v vs %+v", gs.Cost, ws.Cost)
			}
			if !got.MeasureStart.Equal(r.MeasureStart.Truncate(time.Microsecond)) || !got.MeasureEnd.IsZero() {
				t.Errorf("measured interval %v..%v, want %v..zero", got.MeasureStart, got.MeasureEnd, r.MeasureStart)
			}
			if !gs.Start.Equal(ws.Start.Truncate(time.Microsecond)) {
				t.Errorf("sampling start %v, want %v", gs.Start, ws.Start)
			}
		})
	}
}

// TestCrashLeavesRunIncomplete checks that a run begun by a process that died
// before Finish is listed as incomplete, and that a live one is still running.
func TestCrashLeavesRunIncomplete(t *testing.T) {
	ctx := context.Background()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			crashed := &store.Run{Workload: "tpcc", Title: "crashed", Owner: host + ":" + strconv.Itoa(dead.Process.Pid), StartedAt: time.Now().Add(-time.Minute)}
			live := &store.Run{Workload: "tpcb", Title: "live", StartedAt: time.Now()}
			for _, r := range []*store.Run{crashed, live} {
				if _, err := s.Begin(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			list, err := s.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]store.Status{crashed.ID: store.Incomplete, live.ID: store.Running}
			if len(list) != 2 {
				t.Fatalf("listed %d runs, want 2", len(list))
			}
			for _, sum := range list {
				if sum.Status != want[sum.ID] {
					t.Errorf("%s (%s): status %s, want %s", sum.ID, sum.Title, sum.Status, want[sum.ID])
				}
			}
			if list[0].ID != live.ID {
				t.Errorf("newest run not first: %v", list)
			}
		})
	}
}

// TestResolve checks the run references people type.
func TestResolve(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ids := []string{"20261123-120000-aaaa", "20261123-120100-aaab", "20261123-120200-bbbb"}
	for i, id := range ids {
		r := &store.Run{ID: id, Workload: "tpcb", StartedAt: base.Add(time.Duration(i) * time.Minute)}
		if _, err := s.Begin(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		ref, want string
		fails     bool
	}{
		{ref: "last", want: ids[2]},
		{ref: "last~1", want: ids[1]},
		{ref: "last~9", fails: true},
		{ref: ids[0], want: ids[0]},
		{ref: "20261123-1202", want: ids[2]},
		{ref: "20261123-120", fails: true}, // ambiguous
		{ref: "nope", fails: true},
		{ref: "last~x", fails: true},
	} {
		got, err := s.Resolve(ctx, tc.ref)
		if tc.fails != (err != nil) || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q (fails %v)", tc.ref, got, err, tc.want, tc.fails)
		}
	}
}

// TestResultsFileIsPrivate: results.db and SQLite's -wal/-shm files hold run
// data and server settings; they are created 0600, and an older 0644 file is
// tightened when opened.
func TestResultsFileIsPrivate(t *testing.T) {
	ctx := context.Background()
	for _, preexisting := range []bool{false, true} {
		lab := t.TempDir()
		if preexisting {
			if err := os.WriteFile(filepath.Join(lab, store.FileName), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, err := store.Open(ctx, lab, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Begin(ctx, &store.Run{Workload: "pgbench", StartedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(lab, store.FileName+"*"))
		if len(files) < 2 {
			t.Fatalf("expected results.db and its WAL files, found %v", files)
		}
		for _, f := range files {
			if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("preexisting=%v: %s mode %v (%v), want 0600", preexisting, f, fi.Mode().Perm(), err)
			}
		}
		s.Close()
	}
}

// TestFinalWriteAddsOnlyWhatIsLeft: points and events appended during a run
// (every 10 ticks, as recorder.Recording does) stay; Finish adds only those
// left over, so its size does not depend on the run's length, and nothing is
// stored twice or lost. Two runs on a fake clock: a minute and an hour of
// 1 s ticks with a checkpoint every 30 s, each ending with 3 ticks not yet
// appended (and one checkpoint among them).
func TestFinalWriteAddsOnlyWhatIsLeft(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const perTick, flushTicks, leftTicks = 10, 10, 3
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tick := func(i int) []collect.Point {
		at := start.Add(time.Duration(i) * time.Second) // the fake clock
		out := make([]collect.Point, perTick)
		for k := range out {
			out[k] = collect.Point{At: at, Metric: "pg.fake", Key: strconv.Itoa(k), Value: float64(i)}
		}
		return out
	}
	var finalWrites []int
	for _, ticks := range []int{60, 3600} {
		r := &store.Run{Workload: "tpcb", StartedAt: start}
		id, err := s.Begin(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		taken, eventsTaken := 0, 0
		var batch []collect.Point
		var events []collect.Event
		checkpoint := func(i int) {
			if i%30 == 1 {
				events = append(events, collect.Event{At: start.Add(time.Duration(i) * time.Second), Kind: "checkpoint", Detail: strconv.Itoa(i)})
			}
		}
		for i := 1; i <= ticks; i++ {
			batch = append(batch, tick(i)...)
			checkpoint(i)
			if i%flushTicks == 0 {
				if err := s.AppendSamples(ctx, id, batch, events); err != nil {
					t.Fatal(err)
				}
				taken, eventsTaken = taken+len(batch), eventsTaken+len(events)
				batch, events = nil, nil
			}
		}
		for i := ticks + 1; i <= ticks+leftTicks; i++ {
			batch = append(batch, tick(i)...)
			checkpoint(i)
		}
		if len(events) != 1 {
			t.Fatalf("the test's last ticks hold %d checkpoints, want 1", len(events))
		}
		before, err := s.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		r.Samples = &collect.Samples{Start: start, Interval: time.Second, Points: batch, Taken: taken, Events: events, EventsTaken: eventsTaken}
		r.Status = store.Complete
		if err := s.Finish(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		finalWrites = append(finalWrites, len(got.Samples.Points)-len(before.Samples.Points))
		if want := (ticks + leftTicks) * perTick; len(got.Samples.Points) != want {
			t.Errorf("%d ticks: %d points stored, want %d (none lost, none twice)", ticks, len(got.Samples.Points), want)
		}
		if want := (ticks+leftTicks-1)/30 + 1; len(got.Samples.Events) != want {
			t.Errorf("%d ticks: %d checkpoints stored, want %d (none lost, none twice)", ticks, len(got.Samples.Events), want)
		}
		seen := map[string]bool{}
		for _, p := range got.Samples.Points {
			k := p.At.String() + p.Key
			if seen[k] {
				t.Fatalf("%d ticks: point %s stored twice", ticks, k)
			}
			seen[k] = true
		}
	}
	for i, n := range finalWrites {
		if n != leftTicks*perTick {
			t.Errorf("run %d: the final write added %d points, want only the %d left over", i, n, leftTicks*perTick)
		}
	}
}

// TestHourHistogramsRoundTrip: hours appended while a run goes stay through
// Finish, which adds only the hours it is given (and replaces an hour given
// again); they read back equal, on both backends. A store created before
// the table existed gets it when opened, and its old runs read back with no
// hourly histograms.
func TestHourHistogramsRoundTrip(t *testing.T) {
	ctx := context.Background()
	hist := func(values ...int64) *hdrhistogram.Histogram {
		h := hdrhistogram.New(1, 3_600_000_000, 3)
		for _, v := range values {
			_ = h.RecordValue(v)
		}
		return h
	}
	hour := func(t *testing.T, n int, typ string, h *hdrhistogram.Histogram) store.HourHistogram {
		hh, err := store.NewHourHistogram(n, typ, h)
		if err != nil {
			t.Fatal(err)
		}
		return hh
	}
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			r := &store.Run{Workload: "tpcb", StartedAt: time.Now()}
			id, err := s.Begin(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			want := map[[2]any]*hdrhistogram.Histogram{
				{0, "transaction"}: hist(900, 1000, 50_000),
				{0, "other"}:       hist(10),
				{1, "transaction"}: hist(1200, 1300),
				{2, "transaction"}: hist(7, 8, 9),
			}
			for h := range 2 {
				var hs []store.HourHistogram
				for _, typ := range []string{"transaction", "other"} {
					if w := want[[2]any{h, typ}]; w != nil {
						hs = append(hs, hour(t, h, typ, w))
					}
				}
				if err := s.AppendHours(ctx, id, hs); err != nil {
					t.Fatal(err)
				}
			}
			// Hour 1 again, as a retried append would: replaced, not doubled.
			if err := s.AppendHours(ctx, id, []store.HourHistogram{hour(t, 1, "transaction", want[[2]any{1, "transaction"}])}); err != nil {
				t.Fatal(err)
			}
			r.Hourly = []store.HourHistogram{hour(t, 2, "transaction", want[[2]any{2, "transaction"}])}
			r.Status = store.Complete
			if err := s.Finish(ctx, r); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Hourly) != len(want) {
				t.Fatalf("%d hourly histograms read back, want %d", len(got.Hourly), len(want))
			}
			for _, hh := range got.Hourly {
				h, err := hh.Histogram()
				if err != nil {
					t.Fatal(err)
				}
				if w := want[[2]any{hh.Hour, hh.Type}]; w == nil || !w.Equals(h) {
					t.Errorf("hour %d %s differs after the round trip", hh.Hour, hh.Type)
				}
			}
			// Rewriting the loaded run (Finish again) keeps every hour once.
			if err := s.Finish(ctx, got); err != nil {
				t.Fatal(err)
			}
			again, err := s.Load(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Hourly) != len(want) {
				t.Errorf("after a rewrite: %d hourly histograms, want %d", len(again.Hourly), len(want))
			}
		})
	}

	t.Run("store from before the table", func(t *testing.T) {
		lab := t.TempDir()
		s, err := store.Open(ctx, lab, "")
		if err != nil {
			t.Fatal(err)
		}
		old := &store.Run{Workload: "tpcb", StartedAt: time.Now(), Series: []store.Interval{{Second: 0, Type: "transaction", Count: 5, P99: 900}}}
		if _, err := s.Begin(ctx, old); err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(ctx, old); err != nil {
			t.Fatal(err)
		}
		s.Close()
		db, err := sql.Open("sqlite", filepath.Join(lab, store.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`DROP TABLE pgoltp_hour_histograms`); err != nil {
			t.Fatal(err)
		}
		db.Close()

		s, err = store.Open(ctx, lab, "")
		if err != nil {
			t.Fatalf("opening a store from before hourly histograms: %v", err)
		}
		defer s.Close()
		got, err := s.Load(ctx, old.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Hourly) != 0 || len(got.Series) != 1 {
			t.Errorf("old run read back with %d hourly histograms and %d intervals, want none and 1", len(got.Hourly), len(got.Series))
		}
		if err := s.AppendHours(ctx, old.ID, []store.HourHistogram{hour(t, 0, "transaction", hist(5))}); err != nil {
			t.Errorf("the migrated store takes hourly histograms: %v", err)
		}
	})
}
