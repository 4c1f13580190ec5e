package tpcc

import (
	"context"
	"sync"
	"testing"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// TestLoadPartsMatchAWholeLoad: two parts loading one schema side by side
// give the same data as one whole load with the same seed; exactly one of
// them (the last to finish) builds the indexes and marks the load complete,
// and the result passes the consistency check.
func TestLoadPartsMatchAWholeLoad(t *testing.T) {
	t.Parallel()
	dsn := pgtestDatabase(t)
	ctx := context.Background()
	const seed = 4242
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 2, Workers: 2, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stats := make([]LoadStats, 2)
	errs := make([]error, 2)
	for k := 1; k <= 2; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[k-1], errs[k-1] = Load(ctx, dsn, LoadOptions{Warehouses: 2, Workers: 1, Seed: seed, Schema: "parts", Part: workload.Part{K: k, N: 2}})
		}()
	}
	wg.Wait()
	finished := 0
	for k, err := range errs {
		if err != nil {
			t.Fatalf("part %d: %v", k+1, err)
		}
		if stats[k].Finished {
			finished++
		}
	}
	if finished != 1 {
		t.Fatalf("%d parts finished the load, want exactly 1", finished)
	}
	conn := connect(t, dsn, "parts")
	meta, err := ReadMeta(ctx, conn)
	if err != nil || !meta.Complete || meta.Warehouses != 2 || meta.Seed != seed {
		t.Fatalf("meta after the parts: %+v, %v", meta, err)
	}
	var left bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('pgoltp_load_parts') IS NOT NULL").Scan(&left); err != nil || left {
		t.Errorf("pgoltp_load_parts left behind (%v)", err)
	}
	for _, table := range TableNames() {
		if a, b := tableDigest(t, conn, "public", table), tableDigest(t, conn, "parts", table); a != b {
			t.Errorf("%s differs between the parts and a whole load with the same seed", table)
		}
	}
	rep, err := Check(ctx, dsn, CheckOptions{Schema: "parts", Quick: true})
	if err != nil || !rep.Passed {
		t.Fatalf("check of the parts' load: passed=%v err=%v failed=%v", rep.Passed, err, rep.Failed())
	}
	// Loading a part again is refused: its rows are there already.
	again, err := Load(ctx, dsn, LoadOptions{Warehouses: 2, Seed: seed, Schema: "parts", Part: workload.Part{K: 2, N: 2}})
	if err != nil || !again.AlreadyLoaded {
		t.Errorf("part 2 again after the load completed: %+v, %v; want already loaded", again, err)
	}
	if err := (LoadOptions{Warehouses: 2, Part: workload.Part{K: 1, N: 3}, Seed: 1}).Validate(); err == nil {
		t.Error("3 parts of 2 warehouses accepted")
	}
	if err := (LoadOptions{Warehouses: 3, Part: workload.Part{K: 1, N: 3}}).Validate(); err == nil {
		t.Error("a part without --seed accepted")
	}
}
