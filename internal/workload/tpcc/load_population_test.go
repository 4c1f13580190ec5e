package tpcc

import (
	"context"
	"testing"
)

// TestPopulationCardinalities loads one warehouse and checks the row counts of
// clause 4.3.3.1.
func TestPopulationCardinalities(t *testing.T) {
	dsn, st := loadForTest(t, LoadOptions{Warehouses: 1, Seed: 42})
	conn := connect(t, dsn, "")
	ctx := context.Background()
	want := map[string]int64{
		"warehouse": 1, "district": 10, "customer": 30_000, "history": 30_000,
		"orders": 30_000, "new_order": 9_000, "item": 100_000, "stock": 100_000,
	}
	for table, n := range want {
		var got int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Errorf("%s: %d rows, want %d", table, got, n)
		}
		if st.Rows[table] != n {
			t.Errorf("stats: %s %d rows, want %d", table, st.Rows[table], n)
		}
	}
	t.Logf("stats: %+v", st)
}
