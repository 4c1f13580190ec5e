package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// TestOrderStatusOnePicture checks that runs count no inconsistent
// Order-Status output, then makes a Delivery commit in the middle of an
// Order-Status, on both paths: the Delivery holds order_line locked, so the
// Order-Status waits for it after it may already have read the order. The
// output must still be one picture (clauses 2.6.2.2, 3.4): the carrier set
// exactly when the lines are delivered. Statements with their own snapshots
// at read committed would show o_carrier_id null next to delivered lines.
func TestOrderStatusOnePicture(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := loadForRun(t, 1)
	// First, runs with Deliveries going on: every Order-Status output was
	// one picture, counted in the result and shown in the summary.
	for _, path := range bothPaths {
		t.Run("run/"+path, func(t *testing.T) {
			res, err := Run(ctx, dsn, RunOptions{Path: path, Conns: 3, TxnsPerTerminal: 120, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			if res.Txn("order_status").Count == 0 || res.Deliveries.Completed == 0 {
				t.Fatalf("%d Order-Status, %d Deliveries: nothing to audit", res.Txn("order_status").Count, res.Deliveries.Completed)
			}
			if res.OrderStatusMismatches != 0 {
				t.Errorf("%d Order-Status outputs not one picture", res.OrderStatusMismatches)
			}
			var b strings.Builder
			if err := res.WriteSummary(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "order-status outputs not one picture 0") {
				t.Errorf("the summary does not show the count:\n%s", b.String())
			}
		})
	}
	mustCheck(t, dsn)
	ss := pathSession(t, dsn)
	other, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	for i, path := range bothPaths {
		d := int32(1 + i)
		t.Run(path, func(t *testing.T) {
			// An undelivered order that is its customer's most recent one.
			var c, o int32
			if err := other.QueryRow(ctx, `SELECT o_c_id, o_id FROM orders x WHERE o_w_id = 1 AND o_d_id = $1 AND o_carrier_id IS NULL
				AND o_id = (SELECT max(o_id) FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_c_id = x.o_c_id)
				ORDER BY o_id DESC LIMIT 1`, d).Scan(&c, &o); err != nil {
				t.Fatal(err)
			}
			tx, err := other.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx) //nolint:errcheck
			if _, err := tx.Exec(ctx, `LOCK order_line IN ACCESS EXCLUSIVE MODE`); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			s := step{kind: kindOrderStatus, os: orderStatusInput{w: 1, d: d, c: c}}
			var out any
			go func() {
				var err error
				out, err = runStep(ctx, ss, path, &s)
				done <- err
			}()
			// Wait until the Order-Status waits for the lock (generous: a busy machine).
			pid := ss.conn.PgConn().PID()
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				var waiting bool
				if err := other.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_locks WHERE pid = $1 AND NOT granted)`, pid).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if waiting {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the Order-Status never waited for order_line")
				}
			}
			// The Delivery's changes of the order (2.7.4.2), committed while the Order-Status waits.
			for _, sql := range []string{
				`UPDATE orders SET o_carrier_id = 3 WHERE o_w_id = 1 AND o_d_id = $1 AND o_id = $2`,
				`UPDATE order_line SET ol_delivery_d = localtimestamp WHERE ol_w_id = 1 AND ol_d_id = $1 AND ol_o_id = $2`,
			} {
				if _, err := tx.Exec(ctx, sql, d, o); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			os := out.(OrderStatusOutput)
			if os.OID != o || len(os.Lines) == 0 || !os.consistent() {
				t.Errorf("order %d, carrier %d, lines %+v: not one picture", os.OID, os.Carrier, os.Lines)
			}
		})
	}
}

// TestOrderStatusAudit checks the run-time audit of Order-Status outputs:
// an output whose carrier and delivery dates disagree is counted;
// consistent ones are not.
func TestOrderStatusAudit(t *testing.T) {
	delivered := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name       string
		out        OrderStatusOutput
		consistent bool
	}{
		{"undelivered", OrderStatusOutput{Lines: []OrderStatusLineOutput{{}, {}}}, true},
		{"delivered", OrderStatusOutput{Carrier: 4, Lines: []OrderStatusLineOutput{{DeliveryD: delivered}, {DeliveryD: delivered}}}, true},
		{"carrier null, lines delivered", OrderStatusOutput{Lines: []OrderStatusLineOutput{{DeliveryD: delivered}}}, false},
		{"carrier set, lines not delivered", OrderStatusOutput{Carrier: 4, Lines: []OrderStatusLineOutput{{}}}, false},
		{"carrier set, one line delivered", OrderStatusOutput{Carrier: 4, Lines: []OrderStatusLineOutput{{DeliveryD: delivered}, {}}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := metrics.NewRecorder(kindNames(), counterNames()...)
			l := rec.NewLocal()
			ss := &session{}
			ss.out.os = tc.out
			l.Record(kindOrderStatus, time.Millisecond)
			auditOutput(l, ss, kindOrderStatus)
			auditOutput(l, ss, kindPayment) // only Order-Status outputs are audited here
			want := int64(1)
			if tc.consistent {
				want = 0
			}
			if got := rec.Interval().Counter(kindOrderStatus, cntOSMismatch); got != want {
				t.Errorf("counted %d mismatches, want %d", got, want)
			}
		})
	}
}
