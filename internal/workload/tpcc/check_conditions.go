package tpcc

// consistencyCheck is one named check: a query that returns the rows that
// violate it (none = PASS). Queries of perWarehouse checks take the warehouse
// range $1..$2, so the runner can split a check over workers.
type consistencyCheck struct {
	name         string // stable identifier, e.g. "condition_10"
	clause       string // where the rule comes from
	title        string // the rule, for people
	expensive    bool   // per-customer or per-order work; skipped by --quick
	loadOnly     bool   // holds only on a freshly loaded database (condition 11)
	perWarehouse bool   // the query filters on warehouses $1..$2
	query        string
}

// consistencyChecks are the twelve conditions of clause 3.3.2 plus the money
// balance across tables, orphan checks, and the fixed cardinalities of 4.3.3.1.
var consistencyChecks = []consistencyCheck{
	{
		name: "condition_1", clause: "3.3.2.1", title: "w_ytd = Σ d_ytd of its districts", perWarehouse: true,
		query: `SELECT w_id, w_ytd, d.sum_d_ytd FROM warehouse
			LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS sum_d_ytd FROM district WHERE d_w_id BETWEEN $1 AND $2 GROUP BY d_w_id) d ON d.d_w_id = w_id
			WHERE w_id BETWEEN $1 AND $2 AND w_ytd IS DISTINCT FROM d.sum_d_ytd`,
	},
	{
		name: "condition_2", clause: "3.3.2.2", title: "d_next_o_id − 1 = max(o_id) = max(no_o_id) per district", perWarehouse: true,
		query: `SELECT d_w_id, d_id, d_next_o_id, o.max_o_id, n.max_no_o_id FROM district
			LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS max_o_id FROM orders WHERE o_w_id BETWEEN $1 AND $2 GROUP BY 1, 2) o
				ON o.o_w_id = d_w_id AND o.o_d_id = d_id
			LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS max_no_o_id FROM new_order WHERE no_w_id BETWEEN $1 AND $2 GROUP BY 1, 2) n
				ON n.no_w_id = d_w_id AND n.no_d_id = d_id
			WHERE d_w_id BETWEEN $1 AND $2
			  AND (d_next_o_id - 1 IS DISTINCT FROM o.max_o_id
			       OR (n.max_no_o_id IS NOT NULL AND n.max_no_o_id <> d_next_o_id - 1))`,
	},
	{
		name: "condition_3", clause: "3.3.2.3", title: "max(no_o_id) − min(no_o_id) + 1 = rows in new_order per district", perWarehouse: true,
		query: `SELECT no_w_id, no_d_id, max(no_o_id) AS max_no_o_id, min(no_o_id) AS min_no_o_id, count(*) AS new_orders
			FROM new_order WHERE no_w_id BETWEEN $1 AND $2 GROUP BY 1, 2
			HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)`,
	},
	{
		name: "condition_4", clause: "3.3.2.4", title: "Σ o_ol_cnt = rows in order_line per district", perWarehouse: true,
		query: `SELECT coalesce(o.o_w_id, l.ol_w_id) AS w_id, coalesce(o.o_d_id, l.ol_d_id) AS d_id, o.sum_ol_cnt, l.order_lines
			FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS sum_ol_cnt FROM orders WHERE o_w_id BETWEEN $1 AND $2 GROUP BY 1, 2) o
			FULL JOIN (SELECT ol_w_id, ol_d_id, count(*) AS order_lines FROM order_line WHERE ol_w_id BETWEEN $1 AND $2 GROUP BY 1, 2) l
				ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
			WHERE o.sum_ol_cnt IS DISTINCT FROM l.order_lines`,
	},
	{
		name: "condition_5", clause: "3.3.2.5", title: "o_carrier_id is null exactly when the order has a new_order row", perWarehouse: true,
		query: `SELECT o_w_id, o_d_id, o_id, o_carrier_id, no_o_id IS NOT NULL AS has_new_order FROM orders
			LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
			WHERE o_w_id BETWEEN $1 AND $2 AND (o_carrier_id IS NULL) <> (no_o_id IS NOT NULL)`,
	},
	{
		name: "condition_6", clause: "3.3.2.6", title: "o_ol_cnt = rows in order_line of each order", perWarehouse: true,
		query: `SELECT coalesce(o_w_id, l.ol_w_id) AS w_id, coalesce(o_d_id, l.ol_d_id) AS d_id, coalesce(o_id, l.ol_o_id) AS o_id,
				o_ol_cnt, l.order_lines
			FROM (SELECT o_w_id, o_d_id, o_id, o_ol_cnt FROM orders WHERE o_w_id BETWEEN $1 AND $2) o
			FULL JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS order_lines FROM order_line
				WHERE ol_w_id BETWEEN $1 AND $2 GROUP BY 1, 2, 3) l
				ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id
			WHERE o_ol_cnt IS DISTINCT FROM l.order_lines`,
	},
	{
		name: "condition_7", clause: "3.3.2.7", title: "ol_delivery_d is null exactly when the order's o_carrier_id is null", perWarehouse: true,
		query: `SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, ol_delivery_d, o_carrier_id FROM order_line
			JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
			WHERE ol_w_id BETWEEN $1 AND $2 AND (ol_delivery_d IS NULL) <> (o_carrier_id IS NULL)`,
	},
	{
		name: "condition_8", clause: "3.3.2.8", title: "w_ytd = Σ h_amount of its history rows (h_w_id)", perWarehouse: true,
		query: `SELECT w_id, w_ytd, h.sum_h_amount FROM warehouse
			LEFT JOIN (SELECT h_w_id, sum(h_amount) AS sum_h_amount FROM history WHERE h_w_id BETWEEN $1 AND $2 GROUP BY 1) h ON h.h_w_id = w_id
			WHERE w_id BETWEEN $1 AND $2 AND w_ytd IS DISTINCT FROM coalesce(h.sum_h_amount, 0)`,
	},
	{
		name: "condition_9", clause: "3.3.2.9", title: "d_ytd = Σ h_amount of its history rows (h_w_id, h_d_id)", perWarehouse: true,
		query: `SELECT d_w_id, d_id, d_ytd, h.sum_h_amount FROM district
			LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) AS sum_h_amount FROM history WHERE h_w_id BETWEEN $1 AND $2 GROUP BY 1, 2) h
				ON h.h_w_id = d_w_id AND h.h_d_id = d_id
			WHERE d_w_id BETWEEN $1 AND $2 AND d_ytd IS DISTINCT FROM coalesce(h.sum_h_amount, 0)`,
	},
	{
		name: "condition_10", clause: "3.3.2.10", title: "c_balance = Σ delivered ol_amount − Σ h_amount per customer",
		expensive: true, perWarehouse: true,
		query: `SELECT c_w_id, c_d_id, c_id, c_balance, coalesce(ol.delivered, 0) AS delivered, coalesce(h.paid, 0) AS paid
			FROM customer
			LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, sum(ol_amount) AS delivered FROM orders
				JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
				WHERE o_w_id BETWEEN $1 AND $2 AND ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3) ol
				ON ol.o_w_id = c_w_id AND ol.o_d_id = c_d_id AND ol.o_c_id = c_id
			LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, sum(h_amount) AS paid FROM history
				WHERE h_c_w_id BETWEEN $1 AND $2 GROUP BY 1, 2, 3) h
				ON h.h_c_w_id = c_w_id AND h.h_c_d_id = c_d_id AND h.h_c_id = c_id
			WHERE c_w_id BETWEEN $1 AND $2 AND c_balance <> coalesce(ol.delivered, 0) - coalesce(h.paid, 0)`,
	},
	{
		name: "condition_11", clause: "3.3.2.11", title: "rows in orders − rows in new_order = 2,100 per district (fresh load)",
		loadOnly: true, perWarehouse: true,
		query: `SELECT d_w_id, d_id, coalesce(o.orders, 0) AS orders, coalesce(n.new_orders, 0) AS new_orders FROM district
			LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS orders FROM orders WHERE o_w_id BETWEEN $1 AND $2 GROUP BY 1, 2) o
				ON o.o_w_id = d_w_id AND o.o_d_id = d_id
			LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS new_orders FROM new_order WHERE no_w_id BETWEEN $1 AND $2 GROUP BY 1, 2) n
				ON n.no_w_id = d_w_id AND n.no_d_id = d_id
			WHERE d_w_id BETWEEN $1 AND $2 AND coalesce(o.orders, 0) - coalesce(n.new_orders, 0) <> 2100`,
	},
	{
		name: "condition_12", clause: "3.3.2.12", title: "c_balance + c_ytd_payment = Σ delivered ol_amount per customer",
		expensive: true, perWarehouse: true,
		query: `SELECT c_w_id, c_d_id, c_id, c_balance, c_ytd_payment, coalesce(ol.delivered, 0) AS delivered
			FROM customer
			LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, sum(ol_amount) AS delivered FROM orders
				JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
				WHERE o_w_id BETWEEN $1 AND $2 AND ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3) ol
				ON ol.o_w_id = c_w_id AND ol.o_d_id = c_d_id AND ol.o_c_id = c_id
			WHERE c_w_id BETWEEN $1 AND $2 AND c_balance + c_ytd_payment <> coalesce(ol.delivered, 0)`,
	},
	{
		// Every payment adds the same amount to a warehouse and to a customer
		// (2.5.2.2), so the totals agree across the whole database.
		name: "ytd_balance", clause: "2.5.2.2", title: "Σ w_ytd = Σ c_ytd_payment",
		query: `SELECT w.sum_w_ytd, c.sum_c_ytd_payment
			FROM (SELECT coalesce(sum(w_ytd), 0) AS sum_w_ytd FROM warehouse) w,
			     (SELECT coalesce(sum(c_ytd_payment), 0) AS sum_c_ytd_payment FROM customer) c
			WHERE w.sum_w_ytd <> c.sum_c_ytd_payment`,
	},
	{
		name: "orphan_new_order", clause: "1.3", title: "every new_order row has its order", perWarehouse: true,
		query: `SELECT no_w_id, no_d_id, no_o_id FROM new_order
			WHERE no_w_id BETWEEN $1 AND $2
			  AND NOT EXISTS (SELECT 1 FROM orders WHERE o_w_id = no_w_id AND o_d_id = no_d_id AND o_id = no_o_id)`,
	},
	{
		name: "orphan_order_line", clause: "1.3", title: "every order_line row has its order", perWarehouse: true,
		query: `SELECT l.ol_w_id, l.ol_d_id, l.ol_o_id, l.order_lines FROM
			(SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS order_lines FROM order_line WHERE ol_w_id BETWEEN $1 AND $2 GROUP BY 1, 2, 3) l
			WHERE NOT EXISTS (SELECT 1 FROM orders WHERE o_w_id = l.ol_w_id AND o_d_id = l.ol_d_id AND o_id = l.ol_o_id)`,
	},
	{
		name: "orphan_orders", clause: "1.3", title: "every order belongs to an existing customer", perWarehouse: true,
		query: `SELECT o_w_id, o_d_id, o_id, o_c_id FROM orders
			WHERE o_w_id BETWEEN $1 AND $2
			  AND NOT EXISTS (SELECT 1 FROM customer WHERE c_w_id = o_w_id AND c_d_id = o_d_id AND c_id = o_c_id)`,
	},
	{
		name: "orphan_history", clause: "1.3", title: "every history row names an existing customer", expensive: true, perWarehouse: true,
		query: `SELECT h_c_w_id, h_c_d_id, h_c_id, count(*) AS history_rows FROM history
			WHERE h_c_w_id BETWEEN $1 AND $2
			  AND NOT EXISTS (SELECT 1 FROM customer WHERE c_w_id = h_c_w_id AND c_d_id = h_c_d_id AND c_id = h_c_id)
			GROUP BY 1, 2, 3`,
	},
	{
		// These never change after the load: no transaction inserts or deletes
		// warehouses, districts, customers, items or stock (clause 4.3.3.1).
		name: "cardinality", clause: "4.3.3.1", title: "fixed row counts: district, customer, stock, item",
		query: `SELECT what, found, expected FROM (
				SELECT 'districts' AS what, (SELECT count(*) FROM district) AS found, 10 * (SELECT count(*) FROM warehouse) AS expected
				UNION ALL SELECT 'customers', (SELECT count(*) FROM customer), 30000 * (SELECT count(*) FROM warehouse)
				UNION ALL SELECT 'stock', (SELECT count(*) FROM stock), 100000 * (SELECT count(*) FROM warehouse)
				UNION ALL SELECT 'items', (SELECT count(*) FROM item), 100000
			) c WHERE found <> expected`,
	},
}

// CheckNames lists the names of all checks, in the order they are reported.
func CheckNames() []string {
	names := make([]string, len(consistencyChecks))
	for i, c := range consistencyChecks {
		names[i] = c.name
	}
	return names
}
