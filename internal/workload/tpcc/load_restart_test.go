package tpcc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestLoadInterruptedThenRebuilt cancels a load while its COPYs stream, then
// checks that the half-load is marked incomplete, that check refuses it, and
// that the next load (without --force) detects it and rebuilds it completely.
func TestLoadInterruptedThenRebuilt(t *testing.T) {
	t.Parallel()
	dsn := pgtestDatabase(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)

	loadCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := Load(loadCtx, dsn, LoadOptions{Warehouses: 3, Workers: 2, Seed: 11})
		done <- err
	}()
	// Interrupt once data is flowing: a COPY is running and some rows are in.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var copying bool
		if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'COPY %')`).Scan(&copying); err != nil {
			t.Fatal(err)
		}
		if copying {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the load never started copying")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted load returned %v, want context.Canceled", err)
	}

	meta, err := ReadMeta(ctx, admin)
	if err != nil {
		t.Fatalf("ReadMeta after interrupt: %v", err)
	}
	if meta.Complete {
		t.Fatal("an interrupted load is marked complete")
	}
	if _, err := Check(ctx, dsn, CheckOptions{}); err == nil {
		t.Fatal("check accepted an incomplete load")
	}

	st, err := Load(ctx, dsn, LoadOptions{Warehouses: 2, Workers: 2, Seed: 12})
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	if !st.Replaced || st.AlreadyLoaded {
		t.Errorf("reload stats: replaced=%v already=%v, want a replaced load", st.Replaced, st.AlreadyLoaded)
	}
	meta, err = ReadMeta(ctx, admin)
	if err != nil || !meta.Complete || meta.Warehouses != 2 || meta.Seed != 12 {
		t.Fatalf("meta after reload: %+v, %v", meta, err)
	}
	rep, err := Check(ctx, dsn, CheckOptions{})
	if err != nil || !rep.Passed {
		t.Fatalf("check after reload: passed=%v err=%v failed=%v", rep.Passed, err, rep.Failed())
	}

	// A second identical load is a no-op; a different one needs Force.
	st, err = Load(ctx, dsn, LoadOptions{Warehouses: 2, Workers: 2})
	if err != nil || !st.AlreadyLoaded {
		t.Errorf("same load again: already=%v err=%v, want nothing done", st.AlreadyLoaded, err)
	}
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 1}); !errors.Is(err, ErrLoadExists) {
		t.Errorf("different load without Force: %v, want ErrLoadExists", err)
	}
	st, err = Load(ctx, dsn, LoadOptions{Warehouses: 1, Force: true, SchemaOptions: SchemaOptions{ForeignKeys: true}})
	if err != nil || !st.Replaced {
		t.Fatalf("forced load: replaced=%v err=%v", st.Replaced, err)
	}
	var fks, want int
	for _, t := range tpccTables {
		want += len(t.foreignKeys)
	}
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`).Scan(&fks); err != nil {
		t.Fatal(err)
	}
	if fks != want {
		t.Errorf("--foreign-keys created %d foreign keys, want %d", fks, want)
	}
}

// TestLoadRefusesConcurrentLoad holds the schema's load lock as a running load
// would, and expects a second load into the same schema to refuse.
func TestLoadRefusesConcurrentLoad(t *testing.T) {
	t.Parallel()
	dsn := pgtestDatabase(t)
	ctx := context.Background()
	holder := connect(t, dsn, "busy")
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_lock(hashtext('pgoltp tpcc load ' || 'busy'))"); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 1, Schema: "busy"}); !errors.Is(err, ErrLoadBusy) {
		t.Fatalf("load while another holds the schema: %v, want ErrLoadBusy", err)
	}
}
