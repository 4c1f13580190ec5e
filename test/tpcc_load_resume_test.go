package e2e_test

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestTpccLoadResumesAfterKill kills (SIGKILL) the loader once some of its
// COPY jobs have committed, loads again, and expects the second load to keep
// exactly the committed parts (their rows untouched: the same xmin), to say
// so, and to end with the data of an uninterrupted load of the same seed:
// every table equal, one load time in every row, the consistency check and
// the cardinalities passing.
func TestTpccLoadResumesAfterKill(t *testing.T) {
	t.Parallel()
	conn, dsn := pgtest.Conn(t)
	ctx := context.Background()
	load := []string{"--dsn", dsn, "tpcc", "load", "--warehouses", "3", "--workers", "2", "--seed", "31"}

	cmd := exec.Command(pgoltpBinary(t), append(load, "--schema", "killed")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	for deadline := time.Now().Add(3 * time.Minute); len(doneMarks(t, conn)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("no part of the load was committed within 3 minutes")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the wait goroutine reaps it
	marks := doneMarks(t, conn)
	const units = 3 + 6*3 // item, warehouse, district; six tables per warehouse
	if len(marks) == 0 || len(marks) >= units {
		t.Fatalf("killed with %d of %d parts committed; the test needs some but not all", len(marks), units)
	}
	before := map[string]string{}
	for _, m := range marks {
		before[m] = markXmins(t, conn, m)
	}

	r := runPgoltp(t, 5*time.Minute, append(load, "--schema", "killed")...)
	if r.code != 0 {
		t.Fatalf("load after the kill: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`resumed the interrupted load: kept (\d+) rows in (\d+) table chunks already loaded \(checked in [0-9.]+s: `).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("the second load does not say it resumed:\n%s", r.stdout)
	}
	if n, _ := strconv.Atoi(m[2]); n != len(marks) {
		t.Errorf("kept %d chunks, want the %d committed before the kill", n, len(marks))
	}
	for _, mark := range marks {
		if got := markXmins(t, conn, mark); got != before[mark] {
			t.Errorf("%s was loaded again (xmin %s, was %s)", mark, got, before[mark])
		}
	}

	if r := runPgoltp(t, 5*time.Minute, append(load, "--schema", "whole")...); r.code != 0 {
		t.Fatalf("uninterrupted load: exit %d\n%s", r.code, r.stderr)
	}
	for _, table := range []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"} {
		if a, b := schemaDigest(t, conn, "killed", table), schemaDigest(t, conn, "whole", table); a != b {
			t.Errorf("%s differs from an uninterrupted load of the same seed", table)
		}
	}
	var times int
	if err := conn.QueryRow(ctx, `SELECT count(DISTINCT d) FROM (SELECT c_since d FROM killed.customer
		UNION SELECT h_date FROM killed.history UNION SELECT o_entry_d FROM killed.orders) s`).Scan(&times); err != nil {
		t.Fatal(err)
	}
	if times != 1 {
		t.Errorf("the resumed load's rows carry %d load times, want the interrupted load's one", times)
	}
	r = runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcc", "check", "--schema", "killed")
	if r.code != 0 || !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "PASS cardinality ") {
		t.Errorf("check of the resumed load: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// doneMarks lists the killed schema's completion marks as "table/warehouse".
func doneMarks(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	var exists bool
	if err := conn.QueryRow(context.Background(), "SELECT to_regclass('killed.pgoltp_load_done') IS NOT NULL").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		return nil
	}
	rows, err := conn.Query(context.Background(), "SELECT tbl || '/' || w FROM killed.pgoltp_load_done ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	marks, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return marks
}

// markXmins lists the transactions that wrote a marked part's rows.
func markXmins(t *testing.T, conn *pgx.Conn, mark string) string {
	t.Helper()
	table, w, _ := strings.Cut(mark, "/")
	where := "true"
	if w != "0" {
		col := map[string]string{"stock": "s_w_id", "order_line": "ol_w_id", "customer": "c_w_id",
			"orders": "o_w_id", "history": "h_w_id", "new_order": "no_w_id"}[table]
		where = fmt.Sprintf("%s = %s", col, w)
	}
	var xmins string
	if err := conn.QueryRow(context.Background(), fmt.Sprintf(
		"SELECT string_agg(DISTINCT xmin::text, ',') FROM killed.%s WHERE %s", table, where)).Scan(&xmins); err != nil {
		t.Fatal(err)
	}
	return xmins
}

// schemaDigest is the md5 of a table's rows (timestamps left out: they are
// each load's own time) in the order of all its columns.
func schemaDigest(t *testing.T, conn *pgx.Conn, schema, table string) string {
	t.Helper()
	var cols string
	if err := conn.QueryRow(context.Background(), `SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position)
		FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND data_type NOT LIKE 'timestamp%'`,
		schema, table).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	var sum string
	q := fmt.Sprintf("SELECT md5(string_agg(concat_ws('|', %s), ',' ORDER BY %[1]s)) FROM %s.%s", cols, schema, table)
	if err := conn.QueryRow(context.Background(), q).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	return sum
}
