package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// TestOrderStatusOnePicture makes a Delivery commit in the middle of an
// Order-Status, on both paths: the Delivery holds order_line locked, so the
// Order-Status waits for it after it may already have read the order. The
// output must still be one picture (clauses 2.6.2.2, 3.4): the carrier set
// exactly when the lines are delivered. Statements with their own snapshots
// at read committed would show o_carrier_id null next to delivered lines.
func TestOrderStatusOnePicture(t *testing.T) {
	ctx := context.Background()
	dsn, _ := loadForTest(t, LoadOptions{Warehouses: 1, Seed: 9})
	ss := pathSession(t, dsn)
	other, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	for i, path := range bothPaths {
		d := int32(1 + i)
		t.Run(path, func(t *testing.T) {
			// Each customer has one order from the load; order 3,000 is undelivered.
			var c int32
			if err := other.QueryRow(ctx, `SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id = 3000`, d).Scan(&c); err != nil {
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
				`UPDATE orders SET o_carrier_id = 3 WHERE o_w_id = 1 AND o_d_id = $1 AND o_id = 3000`,
				`UPDATE order_line SET ol_delivery_d = localtimestamp WHERE ol_w_id = 1 AND ol_d_id = $1 AND ol_o_id = 3000`,
			} {
				if _, err := tx.Exec(ctx, sql, d); err != nil {
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
			if os.OID != 3000 || len(os.Lines) == 0 || !os.consistent() {
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

// TestRunCountsOrderStatusMismatches runs both paths with Deliveries going on
// and requires every Order-Status output to have been one picture, counted
// in the result and shown in the summary.
func TestRunCountsOrderStatusMismatches(t *testing.T) {
	dsn := loadForRun(t, 1)
	for _, path := range bothPaths {
		res, err := Run(context.Background(), dsn, RunOptions{Path: path, Conns: 3, TxnsPerTerminal: 120, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if res.Txn("order_status").Count == 0 || res.Deliveries.Completed == 0 {
			t.Fatalf("%s: %d Order-Status, %d Deliveries: nothing to audit", path, res.Txn("order_status").Count, res.Deliveries.Completed)
		}
		if res.OrderStatusMismatches != 0 {
			t.Errorf("%s: %d Order-Status outputs not one picture", path, res.OrderStatusMismatches)
		}
		var b strings.Builder
		if err := res.WriteSummary(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "order-status outputs not one picture 0") {
			t.Errorf("%s: the summary does not show the count:\n%s", path, b.String())
		}
	}
	mustCheck(t, dsn)
}
