package recorder_test

import (
	"context"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/store"
)

// TestRecordingStoresPointsOnceWhileRunning records with real collectors
// sampling every 100 ms, so the recording appends points to the store every
// second while the run goes: the stored run is there before Finish, and after
// it every sampled point is stored exactly once (the final write adds only
// what was left, it does not rewrite or duplicate what was appended).
func TestRecordingStoresPointsOnceWhileRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	lab := t.TempDir()
	run := &store.Run{Workload: "pgbench", Title: "streamed"}
	rec, err := recorder.Begin(ctx, lab, "", dsn, run, collect.Options{Interval: 100 * time.Millisecond, NoBloat: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var during int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		mid, err := s.Load(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if mid.Samples != nil && len(mid.Samples.Points) > 0 {
			during = len(mid.Samples.Points)
			break
		}
	}
	if during == 0 {
		t.Fatal("no point was stored while the run was going")
	}
	time.Sleep(1500 * time.Millisecond)
	id, err := rec.Finish(ctx, store.Complete)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Samples.Points) <= during {
		t.Errorf("%d points after Finish, %d already while running: the rest was lost", len(got.Samples.Points), during)
	}
	seen := map[[3]string]bool{}
	for _, p := range got.Samples.Points {
		k := [3]string{p.At.String(), p.Metric, p.Key}
		if seen[k] {
			t.Fatalf("point %v stored twice", k)
		}
		seen[k] = true
	}
}
