package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestNewOrderRepeatedStockRow orders the same item from the same warehouse
// twice: both paths must apply the stock rule once per line, and an order
// with the unused item must roll back and leave nothing behind.
func TestNewOrderRepeatedStockRow(t *testing.T) {
	t.Parallel()
	dsn := loadForRun(t, 1)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := InstallFunctions(ctx, conn); err != nil {
		t.Fatal(err)
	}
	ss := &session{conn: conn}
	stock := func() (cnt, ytd int) {
		if err := conn.QueryRow(ctx, `SELECT s_order_cnt, s_ytd FROM stock WHERE s_w_id = 1 AND s_i_id = 77`).Scan(&cnt, &ytd); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, path := range []string{PathClient, PathServer} {
		run := func(in *newOrderInput) bool {
			var rolled bool
			var err error
			if path == PathClient {
				rolled, err = ss.newOrderClient(ctx, in)
			} else {
				rolled, err = ss.newOrderServer(ctx, in)
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return rolled
		}
		cnt0, ytd0 := stock()
		in := &newOrderInput{w: 1, d: 3, c: 5, allLocal: true,
			lines: []orderLine{{item: 77, supplyW: 1, qty: 4}, {item: 77, supplyW: 1, qty: 6}, {item: 90, supplyW: 1, qty: 1}}}
		if run(in) {
			t.Fatalf("%s: rolled back without an unused item", path)
		}
		cnt1, ytd1 := stock()
		if cnt1-cnt0 != 2 || ytd1-ytd0 != 10 {
			t.Errorf("%s: s_order_cnt +%d s_ytd +%d, want +2 and +10", path, cnt1-cnt0, ytd1-ytd0)
		}
		rb := &newOrderInput{w: 1, d: 3, c: 5, allLocal: true,
			lines: []orderLine{{item: 77, supplyW: 1, qty: 4}, {item: unusedItem, supplyW: 1, qty: 1}}}
		if !run(rb) {
			t.Errorf("%s: the unused item did not roll back", path)
		}
		if cnt2, _ := stock(); cnt2 != cnt1 {
			t.Errorf("%s: the rolled-back order changed stock: %d → %d", path, cnt1, cnt2)
		}
	}
	mustCheck(t, dsn)
}

// TestNewOrderServerStatements counts the SQL statements pgoltp_new_order
// runs (pg_stat_statements with track = all in this session): two for an
// order whose lines name distinct stock rows (the head, then the items,
// stock, lines and output in one); the rolled-back order with the unused
// item runs one more, which tells it from lines naming a stock row twice.
// Aggregating the lines into arrays and reading them back in a third
// statement cost the server more per New-Order than the client path.
func TestNewOrderServerStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pathSession(t, loadForRun(t, 1)).conn
	for _, sql := range []string{"CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
		"SET pg_stat_statements.track = 'all'"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	nested := func() (n int64) {
		if err := conn.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::int8 FROM pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND NOT toplevel`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ss := &session{conn: conn}
	for _, c := range []struct {
		lines      []orderLine
		rollback   bool
		statements int64
	}{
		{[]orderLine{{item: 5, supplyW: 1, qty: 2}, {item: 77, supplyW: 1, qty: 4}, {item: 90, supplyW: 1, qty: 1}}, false, 2},
		{[]orderLine{{item: 5, supplyW: 1, qty: 2}, {item: unusedItem, supplyW: 1, qty: 1}}, true, 3},
	} {
		before := nested()
		rolled, err := ss.newOrderServer(ctx, &newOrderInput{w: 1, d: 2, c: 7, allLocal: true, lines: c.lines})
		if err != nil || rolled != c.rollback {
			t.Fatalf("New-Order %v: rolled back %v, err %v; want rolled back %v", c.lines, rolled, err, c.rollback)
		}
		if n := nested() - before; n != c.statements {
			t.Errorf("New-Order %v ran %d statements inside pgoltp_new_order, want %d", c.lines, n, c.statements)
		}
	}
}

// TestNewOrderServerPlanSurvivesRollback runs New-Orders on the server path,
// every other one rolled back by the unused item, and checks that one
// prepared statement served them all (pg_prepared_statements counts its
// executions as plans chosen). pgx drops a statement of its cache on any
// error, so on the old code every call after a rollback was parsed,
// described and planned again, as a new statement.
func TestNewOrderServerPlanSurvivesRollback(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ss := pathSession(t, loadForRun(t, 1))
	const calls = 9 // the last one commits
	for i := range calls {
		lines := []orderLine{{item: 5, supplyW: 1, qty: 2}, {item: 77, supplyW: 1, qty: 4}}
		if i%2 == 1 {
			lines[1].item = unusedItem
		}
		rolled, err := ss.newOrderServer(ctx, &newOrderInput{w: 1, d: 4, c: 9, allLocal: true, lines: lines})
		if err != nil || rolled != (i%2 == 1) {
			t.Fatalf("New-Order %d: rolled back %v, err %v", i, rolled, err)
		}
	}
	var stmts, executions int64
	if err := ss.conn.QueryRow(ctx, `SELECT count(*), coalesce(sum(generic_plans + custom_plans), 0)::int8
		FROM pg_prepared_statements WHERE statement = $1`, sqlSrvNewOrder).Scan(&stmts, &executions); err != nil {
		t.Fatal(err)
	}
	if stmts != 1 || executions != calls {
		t.Errorf("%d New-Orders (every other one rolled back) ran as %d executions of %d prepared statement(s), want %d of 1",
			calls, executions, stmts, calls)
	}
}

// TestNewOrderServerRefusesRepeatedStockRow calls pgoltp_new_order with two
// lines naming one stock row: it updates each stock row once, so it must
// refuse such an order (the driver calls pgoltp_new_order_repeated for it,
// TestNewOrderRepeatedStockRow) and leave nothing behind. The old function
// checked the lines' order in a PL/pgSQL loop on every call instead.
func TestNewOrderServerRefusesRepeatedStockRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pathSession(t, loadForRun(t, 1)).conn
	var before, after int
	count := `SELECT s_order_cnt FROM stock WHERE s_w_id = 1 AND s_i_id = 77`
	if err := conn.QueryRow(ctx, count).Scan(&before); err != nil {
		t.Fatal(err)
	}
	_, err := conn.Exec(ctx, sqlSrvNewOrder, 1, 3, 5, []int32{77, 77, 90}, []int32{1, 1, 1}, []int32{4, 6, 1})
	if err == nil || !strings.Contains(err.Error(), "stock row twice") {
		t.Fatalf("pgoltp_new_order with a stock row named twice: err %v, want a refusal", err)
	}
	if err := conn.QueryRow(ctx, count).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the refused order changed s_order_cnt: %d → %d", before, after)
	}
}

// TestNewOrderServerPlans reads the plans of the statements inside
// pgoltp_new_order (auto_explain with nested statements, its log sent to
// this session as notices): no window aggregate and no sort. The driver has
// the lines and computes ol_amount and the total as the client path does;
// the old function summed the amounts over a window in numeric and sorted
// the output rows by line.
func TestNewOrderServerPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(loadForRun(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	var plans []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { plans = append(plans, n.Message) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := InstallFunctions(ctx, conn); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"LOAD 'auto_explain'", "SET auto_explain.log_min_duration = 0",
		"SET auto_explain.log_nested_statements = on", "SET client_min_messages = log"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	ss := &session{conn: conn}
	in := &newOrderInput{w: 1, d: 6, c: 11, allLocal: true,
		lines: []orderLine{{item: 5, supplyW: 1, qty: 2}, {item: 77, supplyW: 1, qty: 4}, {item: 90, supplyW: 1, qty: 1}}}
	if rolled, err := ss.newOrderServer(ctx, in); err != nil || rolled {
		t.Fatalf("New-Order: rolled back %v, err %v", rolled, err)
	}
	nested := 0
	for _, p := range plans {
		if !strings.Contains(p, "pgoltp_new_order") && strings.Contains(p, "Query Text") {
			nested++
			if strings.Contains(p, "WindowAgg") || strings.Contains(p, "Sort") {
				t.Errorf("a statement inside pgoltp_new_order aggregates over a window or sorts:\n%s", p)
			}
		}
	}
	if nested != 2 {
		t.Errorf("auto_explain showed %d plans of statements inside pgoltp_new_order, want 2:\n%s", nested, strings.Join(plans, "\n"))
	}
}

// TestNewOrderServerUnnamedThroughPooler runs New-Orders on a connection in
// pgx's cache_describe mode, the one a pooler that cannot keep prepared
// statements gets (cluster.PoolerDSN): no named statement may be left on the
// server connection, which the pooler would not give back to this client
// (TestTpccRunThroughPooler failed on pgbouncer 1.18 when the server path
// prepared one in every mode).
func TestNewOrderServerUnnamedThroughPooler(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(loadForRun(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := InstallFunctions(ctx, conn); err != nil {
		t.Fatal(err)
	}
	ss := &session{conn: conn}
	for _, item := range []int32{77, unusedItem, 78} {
		lines := []orderLine{{item: 5, supplyW: 1, qty: 2}, {item: item, supplyW: 1, qty: 4}}
		if _, err := ss.newOrderServer(ctx, &newOrderInput{w: 1, d: 5, c: 8, allLocal: true, lines: lines}); err != nil {
			t.Fatal(err)
		}
	}
	var named int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements").Scan(&named); err != nil {
		t.Fatal(err)
	}
	if named != 0 {
		t.Errorf("%d named prepared statements on a cache_describe connection, want 0", named)
	}
}
