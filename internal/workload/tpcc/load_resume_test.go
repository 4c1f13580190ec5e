package tpcc

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestCompareMarks: a resumed load keeps the tables only when every
// warehouse's rows are its mark's and no unmarked warehouse has rows.
func TestCompareMarks(t *testing.T) {
	done := map[unitKey]int64{{"stock", 1}: 100_000, {"stock", 2}: 100_000, {"item", 0}: 100_000}
	if d := compareMarks("stock", map[int]int64{1: 100_000, 2: 100_000}, done); len(d) != 0 {
		t.Errorf("matching rows reported as %v", d)
	}
	d := compareMarks("stock", map[int]int64{1: 100_000, 2: 99_999, 3: 5}, done)
	slices.Sort(d)
	if len(d) != 2 || !strings.Contains(d[0], "warehouse 2 has 99999 rows, its mark 100000") || !strings.Contains(d[1], "warehouse 3 has 5 rows and no mark") {
		t.Errorf("differences %q", d)
	}
	if d := compareMarks("item", map[int]int64{}, done); len(d) != 1 {
		t.Errorf("an empty marked table: %q", d)
	}
}

// cancelOn cancels when a progress line contains what.
type cancelOn struct {
	what   string
	cancel context.CancelFunc
}

func (c cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.what) {
		c.cancel()
	}
	return len(p), nil
}

// TestLoadResumesAfterIndexes interrupts a load once its data is in and its
// keys and indexes are built (at ANALYZE): the next load keeps every part,
// drops the keys and indexes, builds them again, and the check passes.
func TestLoadResumesAfterIndexes(t *testing.T) {
	t.Parallel()
	for name, schema := range map[string]SchemaOptions{"plain": {}, "partitioned with foreign keys": {Partitions: 2, ForeignKeys: true}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dsn := pgtestDatabase(t)
			ctx, cancel := context.WithCancel(context.Background())
			_, err := Load(ctx, dsn, LoadOptions{Warehouses: 1, Workers: 2, Seed: 8, SchemaOptions: schema, Progress: cancelOn{"analyzing", cancel}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted load: %v, want context.Canceled", err)
			}
			st, err := Load(context.Background(), dsn, LoadOptions{Warehouses: 1, Workers: 2, SchemaOptions: schema})
			if err != nil {
				t.Fatal(err)
			}
			if st.KeptUnits != 3+6 || st.Replaced || st.Seed != 8 || st.Rows["stock"] != Items {
				t.Errorf("resumed load: kept %d units (want 9), replaced %v, seed %d, stock rows %d", st.KeptUnits, st.Replaced, st.Seed, st.Rows["stock"])
			}
			conn := connect(t, dsn, "")
			var keys int
			if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_constraint
				WHERE connamespace = 'public'::regnamespace AND contype IN ('p', 'f')`).Scan(&keys); err != nil {
				t.Fatal(err)
			}
			if keys == 0 { // (building them again over the old ones would have failed the load)
				t.Error("no keys after the resumed load")
			}
			if rep, err := Check(context.Background(), dsn, CheckOptions{}); err != nil || !rep.Passed {
				t.Fatalf("check after the resumed load: %v %v", err, rep.Failed())
			}
		})
	}
}

// TestLoadRebuildsWhenMarksDisagree interrupts a load after its data is in,
// deletes a few rows of a part marked done, and expects the next load to
// find it, say so, and rebuild from scratch rather than keep a short table.
func TestLoadRebuildsWhenMarksDisagree(t *testing.T) {
	t.Parallel()
	dsn := pgtestDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 1, Workers: 2, Seed: 9, Progress: cancelOn{"building", cancel}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted load: %v, want context.Canceled", err)
	}
	conn := connect(t, dsn, "")
	if _, err := conn.Exec(context.Background(), "DELETE FROM stock WHERE s_i_id <= 10"); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	st, err := Load(context.Background(), dsn, LoadOptions{Warehouses: 1, Workers: 2, Progress: &out})
	if err != nil {
		t.Fatal(err)
	}
	if st.KeptUnits != 0 || !st.Replaced || st.Rows["stock"] != Items {
		t.Errorf("load after the tampering: kept %d units, replaced %v, stock rows %d; want a rebuild", st.KeptUnits, st.Replaced, st.Rows["stock"])
	}
	if want := "rebuilding the interrupted load: the loaded rows do not match the load's completion marks: stock warehouse 1 has 99990 rows, its mark 100000"; !strings.Contains(out.String(), want) {
		t.Errorf("the load does not say why it rebuilt (%q):\n%s", want, out.String())
	}
	if rep, err := Check(context.Background(), dsn, CheckOptions{}); err != nil || !rep.Passed {
		t.Fatalf("check after the rebuild: %v %v", err, rep.Failed())
	}
}
