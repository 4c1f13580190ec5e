package tpcc

import (
	"context"
	"math"
	"testing"
)

// TestPopulation loads one warehouse and checks the cardinalities and the
// value distributions of clause 4.3.3.1, within tolerance where they are random.
func TestPopulation(t *testing.T) {
	t.Parallel()
	dsn, st := loadForTest(t, LoadOptions{Warehouses: 1, Seed: 42})
	conn := connect(t, dsn, "")
	ctx := context.Background()

	t.Run("cardinalities", func(t *testing.T) {
		want := map[string]int64{
			"warehouse": 1, "district": 10, "customer": 30_000, "history": 30_000,
			"orders": 30_000, "new_order": 9_000, "item": 100_000, "stock": 100_000,
		}
		for table, n := range want {
			var got int64
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != n || st.Rows[table] != n {
				t.Errorf("%s: %d rows (stats %d), want %d", table, got, st.Rows[table], n)
			}
		}
		// order_line: Σ o_ol_cnt rows, o_ol_cnt uniform [5..15] so about 300,000.
		var lines, sumCnt int64
		if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM order_line), (SELECT sum(o_ol_cnt) FROM orders)").Scan(&lines, &sumCnt); err != nil {
			t.Fatal(err)
		}
		if lines != sumCnt || lines < 297_000 || lines > 303_000 || st.Rows["order_line"] != lines {
			t.Errorf("order_line: %d rows, Σ o_ol_cnt %d, stats %d; want equal and about 300,000", lines, sumCnt, st.Rows["order_line"])
		}
	})

	// Two workers load every table frozen (COPY FREEZE): after ANALYZE the
	// pages count as all-visible, so nothing rewrites them for hint bits later.
	// (On PostgreSQL 18 we observed COPY FREEZE leave some pages without the
	// visibility bit — up to 40% of the tiny new_order table, about 1% overall;
	// on 15 none. An unfrozen load has no page all-visible.)
	t.Run("frozen", func(t *testing.T) {
		rows, err := conn.Query(ctx, `SELECT relname, relpages, relallvisible FROM pg_class
			WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND relname = ANY($1)`, TableNames())
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var pages, visible int
		for rows.Next() {
			var name string
			var p, v int
			if err := rows.Scan(&name, &p, &v); err != nil {
				t.Fatal(err)
			}
			pages, visible = pages+p, visible+v
			if p > 1 && 2*v < p {
				t.Errorf("%s: only %d of %d pages all-visible", name, v, p)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if 10*visible < 9*pages {
			t.Errorf("%d of %d pages all-visible, want 90%% or more", visible, pages)
		}
	})

	// Exact rules: each query counts the rows that break one; all must be 0.
	exact := []struct{ name, query string }{
		{"w_ytd 300,000.00 and w_tax in [0, 0.2]", `SELECT count(*) FROM warehouse WHERE w_ytd <> 300000 OR w_tax NOT BETWEEN 0 AND 0.2 OR w_zip NOT LIKE '____11111'`},
		{"district constants", `SELECT count(*) FROM district WHERE d_ytd <> 30000 OR d_next_o_id <> 3001 OR d_tax NOT BETWEEN 0 AND 0.2 OR length(d_name) NOT BETWEEN 6 AND 10`},
		{"customer constants", `SELECT count(*) FROM customer WHERE c_middle <> 'OE' OR c_credit_lim <> 50000 OR c_balance <> -10
			OR c_ytd_payment <> 10 OR c_payment_cnt <> 1 OR c_delivery_cnt <> 0 OR c_credit NOT IN ('GC', 'BC')
			OR c_discount NOT BETWEEN 0 AND 0.5 OR length(c_first) NOT BETWEEN 8 AND 16 OR length(c_data) NOT BETWEEN 300 AND 500
			OR c_phone !~ '^[0-9]{16}$' OR c_zip !~ '^[0-9]{4}11111$' OR c_state !~ '^[A-Za-z]{2}$'
			OR length(c_street_1) NOT BETWEEN 10 AND 20 OR length(c_city) NOT BETWEEN 10 AND 20`},
		{"c_last of c_id ≤ 1,000 spells c_id − 1", `SELECT count(*) FROM customer WHERE c_id <= 1000 AND c_last <> ` +
			`(SELECT string_agg((ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[substr(lpad((c_id-1)::text, 3, '0'), i, 1)::int + 1], '' ORDER BY i) FROM generate_series(1, 3) i)`},
		{"c_last is three syllables", `SELECT count(*) FROM customer WHERE c_last !~ '^((BAR|OUGHT|ABLE|PRI|PRES|ESE|ANTI|CALLY|ATION|EING)){3}$'`},
		{"c_since = h_date = o_entry_d = load time", `SELECT (SELECT count(*) FROM customer WHERE c_since <> m.loaded_at::timestamp)
			+ (SELECT count(*) FROM history WHERE h_date <> m.loaded_at::timestamp)
			+ (SELECT count(*) FROM orders WHERE o_entry_d <> m.loaded_at::timestamp)
			+ (SELECT count(*) FROM order_line WHERE ol_delivery_d <> m.loaded_at::timestamp)
			FROM pgoltp_meta m`},
		{"history", `SELECT count(*) FROM history WHERE h_amount <> 10 OR length(h_data) NOT BETWEEN 12 AND 24
			OR h_c_w_id <> h_w_id OR h_c_d_id <> h_d_id`},
		{"history: one row per customer", `SELECT count(*) FROM (SELECT h_c_w_id, h_c_d_id, h_c_id FROM history GROUP BY 1, 2, 3 HAVING count(*) <> 1) x`},
		{"item", `SELECT count(*) FROM item WHERE i_im_id NOT BETWEEN 1 AND 10000 OR i_price NOT BETWEEN 1 AND 100
			OR length(i_name) NOT BETWEEN 14 AND 24 OR length(i_data) NOT BETWEEN 26 AND 50`},
		{"stock", `SELECT count(*) FROM stock WHERE s_quantity NOT BETWEEN 10 AND 100 OR s_ytd <> 0 OR s_order_cnt <> 0
			OR s_remote_cnt <> 0 OR length(s_data) NOT BETWEEN 26 AND 50 OR length(s_dist_01) <> 24 OR length(s_dist_10) <> 24`},
		{"o_c_id is a permutation of 1..3,000 per district", `SELECT count(*) FROM (SELECT o_d_id FROM orders GROUP BY o_d_id
			HAVING count(DISTINCT o_c_id) <> 3000 OR min(o_c_id) <> 1 OR max(o_c_id) <> 3000) x`},
		{"orders: carrier [1..10] below 2,101, else null", `SELECT count(*) FROM orders WHERE o_all_local <> 1 OR o_ol_cnt NOT BETWEEN 5 AND 15
			OR (o_id < 2101 AND o_carrier_id NOT BETWEEN 1 AND 10) OR (o_id < 2101) = (o_carrier_id IS NULL)`},
		{"order_line: delivered lines 0.00 with date, others null and [0.01, 9,999.99]", `SELECT count(*) FROM order_line WHERE ol_quantity <> 5
			OR ol_supply_w_id <> ol_w_id OR ol_i_id NOT BETWEEN 1 AND 100000 OR length(ol_dist_info) <> 24
			OR (ol_o_id < 2101 AND (ol_amount <> 0 OR ol_delivery_d IS NULL))
			OR (ol_o_id >= 2101 AND (ol_amount NOT BETWEEN 0.01 AND 9999.99 OR ol_delivery_d IS NOT NULL))`},
		{"new_order: orders 2,101..3,000", `SELECT count(*) FROM (SELECT no_d_id FROM new_order GROUP BY no_d_id
			HAVING count(*) <> 900 OR min(no_o_id) <> 2101 OR max(no_o_id) <> 3000) x`},
	}
	for _, tc := range exact {
		t.Run(tc.name, func(t *testing.T) {
			var bad int64
			if err := conn.QueryRow(ctx, tc.query).Scan(&bad); err != nil {
				t.Fatal(err)
			}
			if bad != 0 {
				t.Errorf("%d rows break the rule", bad)
			}
		})
	}

	// Random shares and means: about 10% BC, 10% ORIGINAL, uniform ranges.
	approx := []struct {
		name     string
		query    string
		want, to float64
	}{
		{"c_credit BC share", `SELECT avg((c_credit = 'BC')::int) FROM customer`, 0.10, 0.01},
		{"i_data ORIGINAL share", `SELECT avg((i_data LIKE '%ORIGINAL%')::int) FROM item`, 0.10, 0.01},
		{"s_data ORIGINAL share", `SELECT avg((s_data LIKE '%ORIGINAL%')::int) FROM stock`, 0.10, 0.01},
		{"mean s_quantity", `SELECT avg(s_quantity) FROM stock`, 55, 0.5},
		{"mean o_ol_cnt", `SELECT avg(o_ol_cnt) FROM orders`, 10, 0.1},
		{"mean i_price", `SELECT avg(i_price) FROM item`, 50.5, 0.5},
		{"mean c_discount", `SELECT avg(c_discount) FROM customer`, 0.25, 0.01},
		{"mean undelivered ol_amount", `SELECT avg(ol_amount) FROM order_line WHERE ol_delivery_d IS NULL`, 5000, 100},
		{"mean ol_i_id", `SELECT avg(ol_i_id) FROM order_line`, 50000.5, 500},
		{"mean o_carrier_id", `SELECT avg(o_carrier_id) FROM orders`, 5.5, 0.1},
		{"mean i_data length", `SELECT avg(length(i_data)) FROM item`, 38, 0.3},
	}
	for _, tc := range approx {
		t.Run(tc.name, func(t *testing.T) {
			var got float64
			if err := conn.QueryRow(ctx, "SELECT ("+tc.query+")::float8").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tc.want) > tc.to {
				t.Errorf("%s = %.4f, want %.4f ± %.4f", tc.name, got, tc.want, tc.to)
			}
		})
	}

	// c_last of customers 1,001..3,000 follows NURand(255, 0, 999) with C_LOAD:
	// the observed counts fit the exact distribution and do not fit uniform.
	t.Run("c_last NURand distribution", func(t *testing.T) {
		meta, err := ReadMeta(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, `SELECT c_last, count(*) FROM customer WHERE c_id > 1000 GROUP BY c_last`)
		if err != nil {
			t.Fatal(err)
		}
		observed := map[string]float64{}
		var n float64
		for rows.Next() {
			var name string
			var c int64
			if err := rows.Scan(&name, &c); err != nil {
				t.Fatal(err)
			}
			observed[name] = float64(c)
			n += float64(c)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		// Exact NURand probabilities by enumerating both uniform draws.
		var p [1000]float64
		for a := 0; a <= NURandCLast; a++ {
			for x := 0; x <= 999; x++ {
				p[((a|x)+meta.Load.CLast)%1000]++
			}
		}
		var chiNURand, chiUniform float64
		for v := range 1000 {
			exp := n * p[v] / float64((NURandCLast+1)*1000)
			o := observed[string(AppendLastName(nil, v))]
			if exp > 0 {
				chiNURand += (o - exp) * (o - exp) / exp
			}
			u := n / 1000
			chiUniform += (o - u) * (o - u) / u
		}
		// 999 degrees of freedom: mean 999, standard deviation about 45.
		if chiNURand > 1300 {
			t.Errorf("c_last does not fit NURand(255,0,999,C_LOAD=%d): chi² = %.0f", meta.Load.CLast, chiNURand)
		}
		if chiUniform < 2000 {
			t.Errorf("c_last looks uniform (chi² against uniform %.0f): NURand not applied", chiUniform)
		}
		t.Logf("chi² vs NURand %.0f, vs uniform %.0f (n = %.0f)", chiNURand, chiUniform, n)
	})
}
