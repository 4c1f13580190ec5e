package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestLoadDeterministic loads the same seed twice, into two schemas with
// different worker counts and partitioning, and compares every table.
func TestLoadDeterministic(t *testing.T) {
	t.Parallel()
	dsn := pgtestDatabase(t)
	ctx := context.Background()
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 2, Workers: 1, Seed: 2024}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 2, Workers: 3, Seed: 2024, Schema: "Second",
		SchemaOptions: SchemaOptions{Partitions: 3, Fillfactor: map[string]int{"stock": 90}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 2, Seed: 2025, Schema: "third"}); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, dsn, "")
	digest := func(schema, table string) string { return tableDigest(t, conn, schema, table) }
	for _, table := range TableNames() {
		a, b, c := digest("public", table), digest("Second", table), digest("third", table)
		if a != b {
			t.Errorf("%s differs between two loads with the same seed", table)
		}
		if a == c && table != "new_order" {
			t.Errorf("%s is identical for different seeds", table)
		}
	}
	// The partitioned load really is partitioned, and the fillfactor applied.
	var parts int
	var opts []string
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_inherits WHERE inhparent = '"Second".order_line'::regclass`).Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if parts != 3 {
		t.Errorf("order_line has %d partitions, want 3", parts)
	}
	if err := conn.QueryRow(ctx, `SELECT coalesce(reloptions, '{}') FROM pg_class WHERE oid = '"Second".stock_p0'::regclass`).Scan(&opts); err != nil {
		t.Fatal(err)
	}
	if len(opts) != 1 || opts[0] != "fillfactor=90" {
		t.Errorf("stock_p0 options %v, want fillfactor=90", opts)
	}
	// Each partition has exactly its own indexes: the parent's primary key and
	// secondary index adopted them instead of building duplicates.
	for rel, want := range map[string]int{"order_line_p0": 1, "customer_p2": 2, "orders_p1": 2, "item": 1} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_index WHERE indrelid = $1::regclass`, `"Second".`+rel).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%s has %d indexes, want %d", rel, n, want)
		}
	}
	rep, err := Check(ctx, dsn, CheckOptions{Schema: "Second"})
	if err != nil || !rep.Passed {
		t.Fatalf("check of the partitioned load: passed=%v err=%v failed=%v", rep.Passed, err, rep.Failed())
	}
}

// tableDigest is the md5 of a table's rows in key order, timestamps left out
// (they are the load's own time).
func tableDigest(t *testing.T, conn *pgx.Conn, schema, table string) string {
	t.Helper()
	def, _ := tableByName(table)
	var cols []string
	for _, c := range def.columns {
		if !strings.HasPrefix(c.typ, "timestamp") {
			cols = append(cols, "t."+c.name)
		}
	}
	keys := def.primaryKey
	if len(keys) == 0 {
		keys = []string{"h_w_id", "h_d_id", "h_c_id"}
	}
	var sum string
	q := "SELECT md5(string_agg(concat_ws('|', " + strings.Join(cols, ", ") + "), ',' ORDER BY " +
		strings.Join(keys, ", ") + ")) FROM " + pgx.Identifier{schema}.Sanitize() + "." + table + " t"
	if err := conn.QueryRow(context.Background(), q).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	return sum
}
