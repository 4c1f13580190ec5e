package tpcc

import (
	"context"
	"slices"
	"testing"
)

// mustCheck runs the consistency checker and fails the test on any violation.
func mustCheck(t *testing.T, dsn string) {
	t.Helper()
	rep, err := Check(context.Background(), dsn, CheckOptions{Fresh: FreshNo})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, f := range rep.Failed() {
		t.Errorf("check %s (%s) failed: %d violations, e.g. %v", f.Name, f.Clause, f.Violations, f.Rows)
	}
}

// TestCheckDetectsCorruption loads one warehouse, verifies that every check
// passes, then breaks the database one way at a time and asserts that exactly
// the checks the damage must trip fail (a corruption usually breaks more than
// one condition; the expected set says which). Each case undoes its damage, and
// the last step proves the database is consistent again.
func TestCheckDetectsCorruption(t *testing.T) {
	t.Parallel()
	dsn, _ := loadForTest(t, LoadOptions{Warehouses: 1, Seed: 3})
	conn := connect(t, dsn, "")
	ctx := context.Background()
	check := func(t *testing.T) CheckReport {
		t.Helper()
		rep, err := Check(ctx, dsn, CheckOptions{Fresh: FreshYes, Workers: 2})
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		return rep
	}
	failedNames := func(rep CheckReport) []string {
		var names []string
		for _, r := range rep.Failed() {
			names = append(names, r.Name)
		}
		slices.Sort(names)
		return names
	}

	rep := check(t)
	if !rep.Passed {
		t.Fatalf("fresh load fails %v", failedNames(rep))
	}
	for _, r := range rep.Results {
		if r.Status != StatusPass {
			t.Errorf("fresh load: %s is %s, want PASS", r.Name, r.Status)
		}
	}

	// A Delivery (2.7.4) of order 2,101 in district 1 done by hand: every
	// condition still holds except condition 11, which is for fresh loads only.
	delivery := []string{
		`DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2101`,
		`UPDATE orders SET o_carrier_id = 7 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2101`,
		`UPDATE order_line SET ol_delivery_d = now() WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2101`,
		`UPDATE customer SET c_delivery_cnt = c_delivery_cnt + 1, c_balance = c_balance +
			(SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2101)
			WHERE (c_w_id, c_d_id, c_id) = (SELECT o_w_id, o_d_id, o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2101)`,
	}
	undelivery := []string{
		`UPDATE customer SET c_delivery_cnt = c_delivery_cnt - 1, c_balance = c_balance -
			(SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2101)
			WHERE (c_w_id, c_d_id, c_id) = (SELECT o_w_id, o_d_id, o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2101)`,
		`UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2101`,
		`UPDATE orders SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2101`,
		`INSERT INTO new_order VALUES (2101, 1, 1)`,
	}

	cases := []corruptionCase{
		{"condition_1: warehouse ytd off by one",
			[]string{`UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1`},
			[]string{`UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1`},
			[]string{"condition_1", "condition_8", "ytd_balance"}},
		{"condition_2: next order id skipped",
			[]string{`UPDATE district SET d_next_o_id = 3002 WHERE d_w_id = 1 AND d_id = 1`},
			[]string{`UPDATE district SET d_next_o_id = 3001 WHERE d_w_id = 1 AND d_id = 1`},
			[]string{"condition_2"}},
		{"condition_3: hole in new_order",
			[]string{`DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2500`},
			[]string{`INSERT INTO new_order VALUES (2500, 1, 1)`},
			[]string{"condition_11", "condition_3", "condition_5"}},
		{"condition_4: o_ol_cnt too high",
			[]string{`UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1`},
			[]string{`UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1`},
			[]string{"condition_4", "condition_6"}},
		{"condition_5: undelivered order without new_order row",
			[]string{`DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2101`},
			[]string{`INSERT INTO new_order VALUES (2101, 1, 1)`},
			[]string{"condition_11", "condition_5"}},
		{"condition_6: line counts swapped between two orders",
			[]string{`UPDATE orders SET o_ol_cnt = o_ol_cnt + CASE o_id WHEN 1 THEN 1 ELSE -1 END WHERE o_w_id = 1 AND o_d_id = 1 AND o_id IN (1, 2)`},
			[]string{`UPDATE orders SET o_ol_cnt = o_ol_cnt - CASE o_id WHEN 1 THEN 1 ELSE -1 END WHERE o_w_id = 1 AND o_d_id = 1 AND o_id IN (1, 2)`},
			[]string{"condition_6"}},
		{"condition_7: delivered line without delivery date",
			[]string{`UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 1`},
			[]string{`UPDATE order_line SET ol_delivery_d = (SELECT loaded_at::timestamp FROM pgoltp_meta) WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 1`},
			[]string{"condition_7"}},
		{"condition_8: history amount changed",
			[]string{`UPDATE history SET h_amount = h_amount + 1 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1`},
			[]string{`UPDATE history SET h_amount = h_amount - 1 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1`},
			[]string{"condition_10", "condition_8", "condition_9"}},
		{"condition_9: history row booked to another district",
			[]string{`UPDATE history SET h_d_id = 2 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1`},
			[]string{`UPDATE history SET h_d_id = 1 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1`},
			[]string{"condition_9"}},
		{"condition_10: balance moved into ytd payment",
			[]string{`UPDATE customer SET c_balance = c_balance - 1, c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1`},
			[]string{`UPDATE customer SET c_balance = c_balance + 1, c_ytd_payment = c_ytd_payment - 1 WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1`},
			[]string{"condition_10", "ytd_balance"}},
		{"condition_11: a delivery after the load", delivery, undelivery,
			[]string{"condition_11"}},
		{"condition_12: ytd payment off by one",
			[]string{`UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 5`},
			[]string{`UPDATE customer SET c_ytd_payment = c_ytd_payment - 1 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 5`},
			[]string{"condition_12", "ytd_balance"}},
		{"orphan_new_order: new_order row without order",
			[]string{`INSERT INTO new_order VALUES (3001, 1, 1)`},
			[]string{`DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 3001`},
			[]string{"condition_11", "condition_2", "orphan_new_order"}},
		{"orphan_order_line: line without order",
			[]string{`INSERT INTO order_line VALUES (3001, 1, 1, 1, 1, 1, NULL, 5, 1.00, 'xxxxxxxxxxxxxxxxxxxxxxxx')`},
			[]string{`DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 3001`},
			[]string{"condition_4", "condition_6", "orphan_order_line"}},
		{"orphan_orders: order of an unknown customer",
			[]string{`UPDATE orders SET o_c_id = o_c_id + 5000 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1`},
			[]string{`UPDATE orders SET o_c_id = o_c_id - 5000 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1`},
			[]string{"orphan_orders"}},
		{"orphan_history: payment of an unknown customer",
			[]string{`UPDATE history SET h_c_id = 5001 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1`},
			[]string{`UPDATE history SET h_c_id = 1 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 5001`},
			[]string{"condition_10", "orphan_history"}},
		{"cardinality: a stock row deleted",
			[]string{`CREATE TABLE saved_stock AS SELECT * FROM stock WHERE s_w_id = 1 AND s_i_id = 1`,
				`DELETE FROM stock WHERE s_w_id = 1 AND s_i_id = 1`},
			[]string{`INSERT INTO stock SELECT * FROM saved_stock`, `DROP TABLE saved_stock`},
			[]string{"cardinality"}},
	}
	exec := func(t *testing.T, stmts []string) {
		t.Helper()
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exec(t, tc.corrupt)
			defer exec(t, tc.undo)
			rep := check(t)
			want := slices.Clone(tc.wantFailing)
			slices.Sort(want)
			if got := failedNames(rep); !slices.Equal(got, want) {
				t.Errorf("failing checks %v, want %v", got, want)
			}
			if rep.Passed {
				t.Error("report says passed")
			}
			for _, r := range rep.Failed() {
				if r.Violations == 0 || len(r.Rows) == 0 || len(r.Rows[0]) != len(r.Columns) {
					t.Errorf("%s failed without violating rows shown: %+v", r.Name, r)
				}
			}
		})
	}
	for _, name := range CheckNames() {
		if !slices.ContainsFunc(cases, func(c corruptionCase) bool { return slices.Contains(c.wantFailing, name) }) {
			t.Errorf("no case trips check %s", name)
		}
	}
	if rep := check(t); !rep.Passed {
		t.Fatalf("after undoing every corruption, failing: %v", failedNames(rep))
	}
}

// corruptionCase damages the database, names the checks that must fail, and
// repairs the damage.
type corruptionCase struct {
	name        string
	corrupt     []string
	undo        []string
	wantFailing []string
}

// TestCheckOptions covers --quick, freshness and --only.
func TestCheckOptions(t *testing.T) {
	t.Parallel()
	dsn, _ := loadForTest(t, LoadOptions{Warehouses: 1, Seed: 5})
	ctx := context.Background()
	rep, err := Check(ctx, dsn, CheckOptions{Quick: true, Fresh: FreshNo})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		c := consistencyChecks[slices.IndexFunc(consistencyChecks, func(c consistencyCheck) bool { return c.name == r.Name })]
		wantSkip := c.expensive || c.loadOnly
		if (r.Status == StatusSkip) != wantSkip {
			t.Errorf("%s: status %s, expensive=%v loadOnly=%v", r.Name, r.Status, c.expensive, c.loadOnly)
		}
	}
	rep, err = Check(ctx, dsn, CheckOptions{Only: []string{"condition_11"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].Status != StatusPass || !rep.Fresh {
		t.Errorf("--only condition_11 on a fresh load: %+v", rep)
	}
	if _, err := Check(ctx, dsn, CheckOptions{Only: []string{"nope"}}); err == nil {
		t.Error("unknown check name accepted")
	}
	// After an order is placed the database is no longer fresh: auto skips condition 11.
	conn := connect(t, dsn, "")
	if _, err := conn.Exec(ctx, `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = 1;
		INSERT INTO orders VALUES (3001, 1, 1, 1, now(), NULL, 5, 1);
		INSERT INTO new_order VALUES (3001, 1, 1);
		INSERT INTO order_line SELECT 3001, 1, 1, n, n, 1, NULL, 5, 1.00, 'x' FROM generate_series(1, 5) n`); err != nil {
		t.Fatal(err)
	}
	rep, err = Check(ctx, dsn, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fresh || !rep.Passed {
		t.Errorf("after a New-Order: fresh=%v passed=%v failed=%v", rep.Fresh, rep.Passed, rep.Failed())
	}
}

// TestCheckAfterDeliveriesOnly runs only Deliveries on a fresh load: no
// order is placed and no payment made, yet the database is no longer fresh
// (clause 3.3.2.11 holds only on a load), so the automatic freshness must
// skip condition 11 and the consistent data must pass, on both paths.
func TestCheckAfterDeliveriesOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsns := loadedCopies(t, 1, 2)
	for i, path := range bothPaths {
		t.Run(path, func(t *testing.T) {
			dsn := dsns[i]
			ss := pathSession(t, dsn)
			for carrier := int32(1); carrier <= 3; carrier++ {
				var out deliveryOutcome
				req := deliveryRequest{w: 1, carrier: carrier}
				var err error
				if path == PathServer {
					err = ss.deliveryServer(ctx, req, &out)
				} else {
					err = ss.deliveryClient(ctx, req, &out)
				}
				if err != nil || out.skipped != 0 {
					t.Fatalf("delivery: %v, skipped %d", err, out.skipped)
				}
			}
			rep, err := Check(ctx, dsn, CheckOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Fresh || !rep.Passed {
				t.Errorf("after Deliveries only: fresh=%v passed=%v failed=%+v", rep.Fresh, rep.Passed, rep.Failed())
			}
		})
	}
}
