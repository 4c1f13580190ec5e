package tpcc

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestTransactionRules checks, on both paths, the rules of clause 2 that the
// consistency conditions of clause 3.3.2 cannot see: the stock rules, the
// order line's district info, o_all_local, brand-generic and the outputs, the
// c_data and h_data formats, the customer at ⌈n/2⌉ by last name, the oldest
// new order delivered first, and the Stock-Level count.
func TestTransactionRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := loadForRun(t, 2)
	ss := pathSession(t, dsn)
	conn := ss.conn
	q := func(t *testing.T, dst []any, sql string, args ...any) {
		t.Helper()
		if err := conn.QueryRow(ctx, sql, args...).Scan(dst...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec := func(t *testing.T, sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	run := func(t *testing.T, path string, s *step) any {
		t.Helper()
		out, err := runStep(ctx, ss, path, s)
		if err != nil {
			t.Fatalf("%s on the %s path: %v", kinds[s.kind].name, path, err)
		}
		return out
	}
	type stockRow struct{ qty, ytd, orders, remote int }
	stock := func(t *testing.T, w, i int32) (s stockRow) {
		t.Helper()
		q(t, []any{&s.qty, &s.ytd, &s.orders, &s.remote},
			`SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_w_id = $1 AND s_i_id = $2`, w, i)
		return s
	}
	// An item whose i_data and (warehouse 1) s_data both carry ORIGINAL, for brand-generic 'B'.
	var brandItem int32
	q(t, []any{&brandItem}, `SELECT min(i_id) FROM item JOIN stock ON s_w_id = 1 AND s_i_id = i_id
		WHERE i_data LIKE '%ORIGINAL%' AND s_data LIKE '%ORIGINAL%' AND i_id > 1000`)

	for pi, path := range bothPaths {
		base := int32(100 + 10*pi) // each path orders its own items
		t.Run(path+"/new-order stock, lines and outputs", func(t *testing.T) {
			low, high, remote := base+1, base+2, base+3
			// 2.4.2.2: s_quantity ≥ qty + 10 → s_quantity − qty, else s_quantity − qty + 91.
			exec(t, `UPDATE stock SET s_quantity = 14 WHERE s_w_id = 1 AND s_i_id = $1`, low)
			exec(t, `UPDATE stock SET s_quantity = 15 WHERE s_w_id = 1 AND s_i_id = $1`, high)
			before := map[int32]stockRow{low: stock(t, 1, low), high: stock(t, 1, high), brandItem: stock(t, 1, brandItem)}
			remoteBefore, remoteHome := stock(t, 2, remote), stock(t, 1, remote)
			s := step{kind: kindNewOrder, no: newOrderInput{w: 1, d: 3, c: 7, lines: []orderLine{
				{item: low, supplyW: 1, qty: 5}, {item: high, supplyW: 1, qty: 5}, {item: brandItem, supplyW: 1, qty: 2},
				{item: remote, supplyW: 2, qty: 4}}, remote: 1}}
			out := run(t, path, &s).(NewOrderOutput)
			wantQty := map[int32]int{low: 14 - 5 + 91, high: 15 - 5, brandItem: before[brandItem].qty - 2}
			if wantQty[brandItem] < 10 {
				wantQty[brandItem] += 91
			}
			for item, b := range before {
				got, line := stock(t, 1, item), slices.IndexFunc(out.Lines, func(l NewOrderLineOutput) bool { return l.IID == item })
				qty := int(out.Lines[line].Qty)
				if got.qty != wantQty[item] || got.ytd != b.ytd+qty || got.orders != b.orders+1 || got.remote != b.remote {
					t.Errorf("stock of item %d: %+v → %+v, want s_quantity %d, s_ytd +%d, s_order_cnt +1, s_remote_cnt +0",
						item, b, got, wantQty[item], qty)
				}
				if int(out.Lines[line].SQuantity) != got.qty {
					t.Errorf("item %d: output s_quantity %d, table %d", item, out.Lines[line].SQuantity, got.qty)
				}
			}
			// 2.4.2.2: s_remote_cnt counts the lines supplied for another warehouse.
			if got := stock(t, 2, remote); got.remote != remoteBefore.remote+1 || got.orders != remoteBefore.orders+1 {
				t.Errorf("remote stock: %+v → %+v, want s_remote_cnt and s_order_cnt +1", remoteBefore, got)
			}
			if got := stock(t, 1, remote); got != remoteHome {
				t.Errorf("the home stock of the remotely supplied item changed: %+v → %+v", remoteHome, got)
			}
			// o_all_local is 0 with a remote line; ol_dist_info = s_dist_03 of the supplying stock row.
			var allLocal, badDist, lines int
			q(t, []any{&allLocal}, `SELECT o_all_local FROM orders WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = $1`, out.OID)
			q(t, []any{&lines, &badDist}, `SELECT count(*), count(*) FILTER (WHERE ol_dist_info <> s_dist_03)
				FROM order_line JOIN stock ON s_w_id = ol_supply_w_id AND s_i_id = ol_i_id
				WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = $1`, out.OID)
			if allLocal != 0 || lines != 4 || badDist != 0 {
				t.Errorf("o_all_local %d (want 0), %d lines (want 4), %d with ol_dist_info ≠ s_dist_03", allLocal, lines, badDist)
			}
			// The outputs of 2.4.3.3 against the tables.
			var sum int64
			for _, l := range out.Lines {
				var name string
				var price int64
				var brand string
				q(t, []any{&name, &price, &brand}, `SELECT i_name, (i_price * 100)::int8,
					CASE WHEN i_data LIKE '%ORIGINAL%' AND s_data LIKE '%ORIGINAL%' THEN 'B' ELSE 'G' END
					FROM item JOIN stock ON s_i_id = i_id AND s_w_id = $2 WHERE i_id = $1`, l.IID, l.SupplyW)
				if l.IName != name || l.IPriceCents != price || string(l.BrandGeneric) != brand || l.AmountCents != int64(l.Qty)*price {
					t.Errorf("line %+v: want i_name %q, i_price %d, brand-generic %s, ol_amount %d", l, name, price, brand, int64(l.Qty)*price)
				}
				sum += l.AmountCents
			}
			if i := slices.IndexFunc(out.Lines, func(l NewOrderLineOutput) bool { return l.IID == brandItem }); out.Lines[i].BrandGeneric != 'B' {
				t.Errorf("item %d with ORIGINAL in i_data and s_data: brand-generic %c", brandItem, out.Lines[i].BrandGeneric)
			}
			var disc, wTax, dTax int64
			q(t, []any{&disc, &wTax, &dTax}, `SELECT (c_discount * 10000)::int8, (w_tax * 10000)::int8, (d_tax * 10000)::int8
				FROM customer, warehouse, district WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = 7 AND w_id = 1 AND d_w_id = 1 AND d_id = 3`)
			if out.CDiscount != disc || out.WTax != wTax || out.DTax != dTax || out.TotalCents != orderTotalCents(sum, disc, wTax, dTax) ||
				out.TotalCents == 0 {
				t.Errorf("output %+v: want discount %d, taxes %d %d, total %d", out, disc, wTax, dTax, orderTotalCents(sum, disc, wTax, dTax))
			}
			// An all-local order has o_all_local = 1.
			s = step{kind: kindNewOrder, no: newOrderInput{w: 1, d: 3, c: 7, allLocal: true,
				lines: []orderLine{{item: base + 4, supplyW: 1, qty: 1}}}}
			out = run(t, path, &s).(NewOrderOutput)
			q(t, []any{&allLocal}, `SELECT o_all_local FROM orders WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = $1`, out.OID)
			if allLocal != 1 {
				t.Errorf("all-local order: o_all_local %d", allLocal)
			}
		})

		t.Run(path+"/payment c_data and h_data", func(t *testing.T) {
			// 2.5.2.2: a BC customer gets "c_id c_d_id c_w_id d_id w_id amount | " prepended, 500 characters kept.
			cw, cd, c := int32(2), int32(4), int32(10+pi)
			old := strings.Repeat("x", 490)
			exec(t, `UPDATE customer SET c_credit = 'BC', c_data = $4 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, c, old)
			s := step{kind: kindPayment, pay: paymentInput{w: 1, d: 5, cw: cw, cd: cd, c: c, amount: "12.30", remote: true}}
			out := run(t, path, &s).(PaymentOutput)
			want := fmt.Sprintf("%d %d %d %d %d 12.30 | %s", c, cd, cw, 5, 1, old)[:500]
			var data, hData, wName, dName string
			q(t, []any{&data}, `SELECT c_data FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, c)
			if data != want {
				t.Errorf("c_data %q…, want %q…", data[:40], want[:40])
			}
			if out.CID != c || out.CCredit != "BC" || out.CData200 != want[:200] {
				t.Errorf("output c_id %d credit %s c_data %q…", out.CID, out.CCredit, out.CData200[:min(40, len(out.CData200))])
			}
			// 2.5.2.2: h_data = w_name + 4 spaces + d_name, of the terminal's warehouse and district.
			q(t, []any{&hData, &wName, &dName}, `SELECT h_data, w_name, d_name FROM history, warehouse, district
				WHERE h_c_w_id = $1 AND h_c_d_id = $2 AND h_c_id = $3 AND h_amount = 12.30 AND w_id = 1 AND d_w_id = 1 AND d_id = 5`, cw, cd, c)
			if hData != wName+"    "+dName || out.WName != wName || out.DName != dName {
				t.Errorf("h_data %q, want %q; output names %q %q", hData, wName+"    "+dName, out.WName, out.DName)
			}
			var street, phone string
			q(t, []any{&street, &phone}, `SELECT w_street_1, c_phone FROM warehouse, customer
				WHERE w_id = 1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, c)
			if out.WStreet1 != street || out.CPhone != phone || out.CSince.IsZero() || out.CCreditLimCents != 5000000 {
				t.Errorf("output %+v: want w_street_1 %q, c_phone %q, c_since, c_credit_lim 50000.00", out, street, phone)
			}
			// A GC customer's c_data does not change, and its output has no c_data.
			exec(t, `UPDATE customer SET c_credit = 'GC' WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, c)
			out = run(t, path, &s).(PaymentOutput)
			var after string
			q(t, []any{&after}, `SELECT c_data FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, c)
			if after != data || out.CData200 != "" {
				t.Errorf("GC customer: c_data changed (%v) or shown (%q)", after != data, out.CData200)
			}
		})

		t.Run(path+"/customer by last name", func(t *testing.T) {
			// 2.5.2.2, 2.6.2.2: the customer at position ⌈n/2⌉ of those with
			// the name, ordered by c_first; names with n = 2, 3, 4 tell
			// ⌈n/2⌉ from ⌊n/2⌋ and from ⌊n/2⌋ + 1.
			for n := 2; n <= 4; n++ {
				var last string
				var ids []int32
				q(t, []any{&last, &ids}, `SELECT c_last, array_agg(c_id ORDER BY c_first) FROM customer
					WHERE c_w_id = 1 AND c_d_id = 6 GROUP BY c_last HAVING count(*) = $1 ORDER BY c_last LIMIT 1`, n)
				want := ids[(n+1)/2-1]
				pay := step{kind: kindPayment, pay: paymentInput{w: 1, d: 6, cw: 1, cd: 6, byName: true, last: last, amount: "1.00"}}
				if got := run(t, path, &pay).(PaymentOutput).CID; got != want {
					t.Errorf("Payment by name %s (n=%d, by c_first %v): c_id %d, want %d", last, n, ids, got, want)
				}
				os := step{kind: kindOrderStatus, os: orderStatusInput{w: 1, d: 6, byName: true, last: last}}
				if got := run(t, path, &os).(OrderStatusOutput).CID; got != want {
					t.Errorf("Order-Status by name %s (n=%d): c_id %d, want %d", last, n, got, want)
				}
			}
		})

		t.Run(path+"/delivery oldest first", func(t *testing.T) {
			// 2.7.4.2: each district delivers its oldest undelivered order.
			var oldest []int32
			q(t, []any{&oldest}, `SELECT array_agg(m ORDER BY d) FROM (SELECT no_d_id AS d, min(no_o_id) AS m
				FROM new_order WHERE no_w_id = 2 GROUP BY no_d_id) x`)
			s := step{kind: kindDelivery, dreq: deliveryRequest{w: 2, carrier: int32(4 + pi)}}
			out := run(t, path, &s).(deliveryOutcome)
			if !slices.Equal(out.orders[:], oldest) || out.skipped != 0 {
				t.Errorf("delivered %v (skipped %d), want the oldest %v", out.orders, out.skipped, oldest)
			}
			var carriers []int32
			q(t, []any{&carriers}, `SELECT array_agg(o_carrier_id ORDER BY o_d_id) FROM orders
				WHERE o_w_id = 2 AND (o_d_id, o_id) IN (SELECT d, o FROM unnest($1::int[]) WITH ORDINALITY AS u(o, d))`, oldest)
			for _, c := range carriers {
				if c != int32(4+pi) {
					t.Errorf("carriers %v, want %d", carriers, 4+pi)
					break
				}
			}
		})

		t.Run(path+"/stock level", func(t *testing.T) {
			// 2.8.2.2 by another route: the items of the last 20 orders, then their stock.
			var next int32
			q(t, []any{&next}, `SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3`)
			var items []int32
			q(t, []any{&items}, `SELECT array_agg(DISTINCT ol_i_id) FROM order_line
				WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id BETWEEN $1 AND $2`, next-20, next-1)
			var qtys []int32
			q(t, []any{&qtys}, `SELECT array_agg(s_quantity ORDER BY s_i_id) FROM stock WHERE s_w_id = 1 AND s_i_id = ANY($1)`, items)
			nonzero := false
			for threshold := int32(10); threshold <= 20; threshold += 5 {
				var want int64
				for _, sq := range qtys {
					if sq < threshold {
						want++
					}
				}
				s := step{kind: kindStockLevel, sl: stockLevelInput{w: 1, d: 3, threshold: threshold}}
				if got := run(t, path, &s).(StockLevelOutput).LowStock; got != want {
					t.Errorf("threshold %d: low stock %d, want %d", threshold, got, want)
				}
				nonzero = nonzero || want > 0
			}
			if !nonzero {
				t.Error("no threshold found low stock: the test sees nothing")
			}
		})
	}
	mustCheck(t, dsn)
}
