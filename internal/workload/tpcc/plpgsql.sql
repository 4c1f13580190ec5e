-- pgoltp TPC-C server path: the five transactions as PL/pgSQL functions, one
-- call (one round trip) per transaction. Installed by "pgoltp tpcc run
-- --path server" into the TPC-C schema. The same rules as the client path
-- (shared/TPCC.md, clause 2); the client sorts New-Order lines by (supply
-- warehouse, item) so stock rows are always locked in the same order.

-- Earlier versions returned a scalar or other columns: drop those, which
-- CREATE OR REPLACE cannot change (and only those, so that a run using the
-- current ones is not disturbed).
DO $$
DECLARE f regprocedure;
BEGIN
	FOR f IN SELECT p.oid FROM pg_proc p
		WHERE p.pronamespace = current_schema()::regnamespace
		  AND p.proname IN ('pgoltp_new_order', 'pgoltp_new_order_repeated', 'pgoltp_payment', 'pgoltp_order_status')
		  AND (p.prorettype <> 'record'::regtype OR NOT (p.proargnames[array_length(p.proargnames, 1)] LIKE 'r\_%')
			OR (p.proname LIKE 'pgoltp\_new\_order%' AND NOT 'r_n' = ANY (p.proargnames)))
	LOOP
		EXECUTE 'DROP FUNCTION ' || f;
	END LOOP;
END $$;

-- New-Order (2.4), the steps of clause 2.4.2.2 in the client path's order:
-- warehouse, district (read and increment d_next_o_id), customer, the orders
-- and new_order rows, then the items with the stock rows, and the order lines,
-- each step for all lines at once. The lines must name distinct stock rows in
-- strictly increasing (supply warehouse, item) order, the lock order, as the
-- driver sorts them; it calls pgoltp_new_order_repeated for an order naming a
-- stock row twice (0.9% of orders). An item not found (the unused item of
-- 2.4.1.4, always the last line) skips only that item's steps: the lines
-- before it are done, then SQLSTATE TPC01 rolls the whole transaction back
-- (2.4.2.3) with DETAIL "o_id c_credit c_last", what 2.4.3.4 displays. The
-- driver counts it as a completed New-Order that rolled back. Returns what
-- the output of 2.4.3.3 needs from the database, one row per line (r_n, in
-- no order) with the order's fields repeated; money in cents, rates in
-- 1/10,000. The driver has the lines' inputs, and computes ol_amount and the
-- total from the prices as the client path does (orderTotalCents): no window
-- sum, no sort and no numeric arithmetic per row here.
--
-- Two statements and one PL/pgSQL expression per order: every expression
-- PL/pgSQL evaluates (a DECLARE initialiser, a loop's condition) is set up
-- again in every transaction, so the inputs' checks are in the SQL.
CREATE OR REPLACE FUNCTION pgoltp_new_order(p_w int, p_d int, p_c int,
	p_items int[], p_supply int[], p_qty int[])
RETURNS TABLE (r_o_id int, r_c_last text, r_c_credit text, r_c_discount bigint, r_w_tax bigint,
	r_d_tax bigint, r_o_entry_d timestamp,
	r_n int, r_i_name text, r_i_price int, r_s_quantity int, r_brand boolean)
LANGUAGE plpgsql AS $$
DECLARE
	v_w_tax bigint; v_d_tax bigint; v_o_id int; v_entry timestamp;
	v_discount bigint; v_last text; v_credit text;
	v_found bigint;
BEGIN
	-- The warehouse, the district, the customer, the orders and new_order
	-- rows in one statement, the client path's (sqlNOHead).
	WITH w AS (SELECT w_tax FROM warehouse WHERE w_id = p_w),
		d AS (UPDATE district SET d_next_o_id = d_next_o_id + 1
			WHERE d_w_id = p_w AND d_id = p_d RETURNING d_tax, d_next_o_id - 1 AS o_id),
		c AS (SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c),
		o AS (INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
			SELECT d.o_id, p_d, p_w, p_c, localtimestamp, NULL, cardinality(p_items),
				CASE WHEN p_w = ALL (p_supply) THEN 1 ELSE 0 END FROM d RETURNING o_entry_d),
		n AS (INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT d.o_id, p_d, p_w FROM d)
	SELECT (w.w_tax * 10000)::int8, (d.d_tax * 10000)::int8, d.o_id, (c.c_discount * 10000)::int8,
			c.c_last, c.c_credit, o.o_entry_d
		INTO v_w_tax, v_d_tax, v_o_id, v_discount, v_last, v_credit, v_entry
		FROM w, d, c, o;
	-- The items, the stock rows (updated in the array order, the lock
	-- order), the order lines and the output in one statement, the lines in
	-- array order. A line has an output row when its item was found and its
	-- stock row updated for it: the unused item has no stock row, and of two
	-- lines naming one stock row the UPDATE applies one. Fewer rows than
	-- lines rolls the order back, which discards the lines inserted and the
	-- output.
	RETURN QUERY WITH it AS (SELECT i_id, i_price, i_name, strpos(i_data, 'ORIGINAL') > 0 AS orig
			FROM item WHERE i_id = ANY (p_items)),
		u AS (UPDATE stock SET
			s_quantity = CASE WHEN s_quantity >= v.q + 10 THEN s_quantity - v.q ELSE s_quantity - v.q + 91 END,
			s_ytd = s_ytd + v.q, s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + CASE WHEN v.w <> p_w THEN 1 ELSE 0 END
			FROM unnest(p_supply, p_items, p_qty) WITH ORDINALITY AS v(w, i, q, n)
			WHERE s_w_id = v.w AND s_i_id = v.i
			RETURNING v.n, s_quantity,
			CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
			WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
			WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
			ELSE s_dist_10 END AS dist, strpos(s_data, 'ORIGINAL') > 0 AS orig),
		l AS (SELECT l.n, l.w, l.i, l.q, it.i_price, it.i_name, it.orig AS i_orig,
				u.s_quantity, u.dist, u.orig AS s_orig
			FROM unnest(p_supply, p_items, p_qty) WITH ORDINALITY AS l(w, i, q, n)
			JOIN it ON it.i_id = l.i
			JOIN u ON u.n = l.n),
		ins AS (INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
				ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
			SELECT v_o_id, p_d, p_w, l.n, l.i, l.w, NULL, l.q, l.q * l.i_price, l.dist FROM l)
		SELECT v_o_id, v_last, v_credit, v_discount, v_w_tax, v_d_tax, v_entry,
			l.n::int, l.i_name::text, (l.i_price * 100)::int, l.s_quantity, l.i_orig AND l.s_orig
		FROM l;
	GET DIAGNOSTICS v_found = ROW_COUNT;
	IF v_found < cardinality(p_items) THEN
		-- Rare (1% of orders): tell a misuse from the unused item.
		IF EXISTS (SELECT FROM unnest(p_supply, p_items) AS l(w, i) GROUP BY l.w, l.i HAVING count(*) > 1) THEN
			RAISE EXCEPTION 'pgoltp_new_order: the lines name a stock row twice'
				USING HINT = 'Call pgoltp_new_order_repeated for such an order.';
		END IF;
		RAISE EXCEPTION 'item not found' USING ERRCODE = 'TPC01',
			DETAIL = v_o_id || ' ' || v_credit || ' ' || v_last;
	END IF;
END $$;

-- New-Order for an order naming a stock row twice (the lines sorted as for
-- pgoltp_new_order): the same steps and output, with one UPDATE per line up
-- to the first item not found, so that each line applies the stock rule.
CREATE OR REPLACE FUNCTION pgoltp_new_order_repeated(p_w int, p_d int, p_c int,
	p_items int[], p_supply int[], p_qty int[])
RETURNS TABLE (r_o_id int, r_c_last text, r_c_credit text, r_c_discount bigint, r_w_tax bigint,
	r_d_tax bigint, r_o_entry_d timestamp,
	r_n int, r_i_name text, r_i_price int, r_s_quantity int, r_brand boolean)
LANGUAGE plpgsql AS $$
DECLARE
	v_w_tax bigint; v_d_tax bigint; v_o_id int; v_entry timestamp;
	v_discount bigint; v_last text; v_credit text;
	v_n int := cardinality(p_items);
	v_price numeric[]; v_name text[]; v_i_orig boolean[];
	v_missing int; v_upto int;
	v_s_qty int[] := '{}'; v_dist text[] := '{}'; v_s_orig boolean[] := '{}';
	v_q int; v_di text; v_so boolean;
	i int;
BEGIN
	WITH w AS (SELECT w_tax FROM warehouse WHERE w_id = p_w),
		d AS (UPDATE district SET d_next_o_id = d_next_o_id + 1
			WHERE d_w_id = p_w AND d_id = p_d RETURNING d_tax, d_next_o_id - 1 AS o_id),
		c AS (SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c),
		o AS (INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
			SELECT d.o_id, p_d, p_w, p_c, localtimestamp, NULL, v_n,
				CASE WHEN p_w = ALL (p_supply) THEN 1 ELSE 0 END FROM d RETURNING o_entry_d),
		n AS (INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT d.o_id, p_d, p_w FROM d)
	SELECT (w.w_tax * 10000)::int8, (d.d_tax * 10000)::int8, d.o_id, (c.c_discount * 10000)::int8,
			c.c_last, c.c_credit, o.o_entry_d
		INTO v_w_tax, v_d_tax, v_o_id, v_discount, v_last, v_credit, v_entry
		FROM w, d, c, o;
	-- The items, then one UPDATE per line up to the first item not found,
	-- then the order lines and the output.
	SELECT array_agg(it.i_price ORDER BY l.n), array_agg(it.i_name ORDER BY l.n),
			array_agg(strpos(it.i_data, 'ORIGINAL') > 0 ORDER BY l.n)
		INTO v_price, v_name, v_i_orig
		FROM unnest(p_items) WITH ORDINALITY AS l(i, n) LEFT JOIN item it ON it.i_id = l.i;
	v_missing := array_position(v_price, NULL::numeric);
	v_upto := coalesce(v_missing - 1, v_n);
	FOR i IN 1 .. v_upto LOOP
		UPDATE stock SET
			s_quantity = CASE WHEN s_quantity >= p_qty[i] + 10 THEN s_quantity - p_qty[i]
				ELSE s_quantity - p_qty[i] + 91 END,
			s_ytd = s_ytd + p_qty[i], s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + CASE WHEN p_supply[i] <> p_w THEN 1 ELSE 0 END
			WHERE s_w_id = p_supply[i] AND s_i_id = p_items[i]
			RETURNING s_quantity, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
			WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
			WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
			ELSE s_dist_10 END, strpos(s_data, 'ORIGINAL') > 0
			INTO v_q, v_di, v_so;
		v_s_qty := v_s_qty || v_q; v_dist := v_dist || v_di; v_s_orig := v_s_orig || v_so;
	END LOOP;
	-- The order lines (ol_amount = qty × i_price, ol_dist_info = s_dist_xx)
	-- and the output of the lines inserted in one statement; then the
	-- rollback of an order with an item not found, which discards it.
	RETURN QUERY WITH ins AS (
			INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
				ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
			SELECT v_o_id, p_d, p_w, l.n, l.i, l.s, NULL, l.q, l.q * v_price[l.n], v_dist[l.n]
			FROM unnest(p_items[1:v_upto], p_supply[1:v_upto], p_qty[1:v_upto]) WITH ORDINALITY AS l(i, s, q, n))
		SELECT v_o_id, v_last, v_credit, v_discount, v_w_tax, v_d_tax, v_entry,
			l.n::int, v_name[l.n], (v_price[l.n] * 100)::int, v_s_qty[l.n], v_i_orig[l.n] AND v_s_orig[l.n]
		FROM generate_series(1, v_upto) AS l(n);
	IF v_missing IS NOT NULL THEN
		RAISE EXCEPTION 'item not found' USING ERRCODE = 'TPC01',
			DETAIL = v_o_id || ' ' || v_credit || ' ' || v_last;
	END IF;
END $$;

-- Payment (2.5) in one statement, the client path's (sqlPayment): the
-- warehouse, the district and the customer updated in that lock order (each
-- UPDATE joins the previous one's row), then the history row. p_c_id = 0
-- selects the customer by p_c_last: position ceil(n/2) of the customers with
-- that name ordered by c_first. Returns the output of 2.5.3.3: the
-- warehouse's and district's names and addresses and the customer's fields,
-- with the first 200 characters of c_data for a BC customer; money in cents,
-- the discount in 1/10,000. No such customer fails the statement (SQLSTATE
-- 22P02, naming the customer) and rolls everything back, as in the client path.
CREATE OR REPLACE FUNCTION pgoltp_payment(p_w int, p_d int, p_c_w int, p_c_d int,
	p_c_id int, p_c_last text, p_amount numeric)
RETURNS TABLE (r_w_name text, r_w_street_1 text, r_w_street_2 text, r_w_city text, r_w_state text, r_w_zip text,
	r_d_name text, r_d_street_1 text, r_d_street_2 text, r_d_city text, r_d_state text, r_d_zip text,
	r_c_id int, r_c_first text, r_c_middle text, r_c_last text, r_c_street_1 text, r_c_street_2 text,
	r_c_city text, r_c_state text, r_c_zip text, r_c_phone text, r_c_since timestamp, r_c_credit text,
	r_c_credit_lim bigint, r_c_discount bigint, r_c_balance bigint, r_c_data_200 text)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY WITH w AS (
			UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w
			RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
		d AS (
			UPDATE district SET d_ytd = d_ytd + p_amount FROM w WHERE d_w_id = p_w AND d_id = p_d
			RETURNING w.*, d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
		c AS (
			UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
				c_payment_cnt = c_payment_cnt + 1,
				c_data = CASE WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' ||
					p_d || ' ' || p_w || ' ' || p_amount || ' | ' || c_data, 500) ELSE c_data END
			FROM d
			WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = CASE WHEN p_c_id <> 0 THEN p_c_id ELSE (
				SELECT (array_agg(cn.c_id ORDER BY cn.c_first))[(count(*) + 1) / 2]
				FROM customer cn WHERE cn.c_w_id = p_c_w AND cn.c_d_id = p_c_d AND cn.c_last = p_c_last) END
			RETURNING d.*, c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
				c_phone, c_since, c_credit, (c_credit_lim * 100)::bigint AS credit_lim,
				(c_discount * 10000)::bigint AS discount, (c_balance * 100)::bigint AS balance,
				CASE WHEN c_credit = 'BC' THEN left(c_data, 200) ELSE '' END AS data_200),
		h AS (
			INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
			SELECT c.c_id, p_c_d, p_c_w, p_d, p_w, localtimestamp, p_amount, c.w_name || '    ' || c.d_name FROM c
			UNION ALL
			SELECT (SELECT 'payment: no customer ' || p_c_w || '/' || p_c_d || '/' ||
				CASE WHEN p_c_id <> 0 THEN p_c_id::text ELSE p_c_last END)::int, 0, 0, 0, 0, NULL, 0, NULL
			WHERE NOT EXISTS (SELECT FROM c))
		SELECT c.w_name::text, c.w_street_1::text, c.w_street_2::text, c.w_city::text, c.w_state::text, c.w_zip::text,
			c.d_name::text, c.d_street_1::text, c.d_street_2::text, c.d_city::text, c.d_state::text, c.d_zip::text,
			c.c_id, c.c_first::text, c.c_middle::text, c.c_last::text, c.c_street_1::text, c.c_street_2::text,
			c.c_city::text, c.c_state::text, c.c_zip::text, c.c_phone::text, c.c_since, c.c_credit::text,
			c.credit_lim, c.discount, c.balance, c.data_200::text
		FROM c;
END $$;

-- Order-Status (2.6): the customer, its most recent order and that order's
-- lines, one row per line, in one statement (one snapshot even at read
-- committed, so the carrier and the delivery dates agree; clause 3.4): the
-- client path's statement.
CREATE OR REPLACE FUNCTION pgoltp_order_status(p_w int, p_d int, p_c_id int, p_c_last text)
RETURNS TABLE (r_c_id int, r_c_first text, r_c_middle text, r_c_last text, r_c_balance bigint,
	r_o_id int, r_o_entry_d timestamp, r_o_carrier_id int,
	r_ol_supply_w_id int, r_ol_i_id int, r_ol_quantity int, r_ol_amount bigint, r_ol_delivery_d timestamp)
LANGUAGE plpgsql STABLE AS $$
BEGIN
	IF p_c_id <> 0 THEN
		RETURN QUERY WITH c AS (SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
				WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c_id),
			o AS (SELECT o_id, o_entry_d, o_carrier_id FROM orders
				WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = (SELECT c.c_id FROM c)
				ORDER BY o_id DESC LIMIT 1)
		SELECT c.c_id::int, c.c_first::text, c.c_middle::text, c.c_last::text, (c.c_balance * 100)::bigint,
			o.o_id::int, o.o_entry_d::timestamp, coalesce(o.o_carrier_id, 0)::int,
			ol.ol_supply_w_id::int, ol.ol_i_id::int, ol.ol_quantity::int, (ol.ol_amount * 100)::bigint, ol.ol_delivery_d::timestamp
		FROM c CROSS JOIN o
		JOIN order_line ol ON ol.ol_w_id = p_w AND ol.ol_d_id = p_d AND ol.ol_o_id = o.o_id
		ORDER BY ol.ol_number;
	ELSE
		RETURN QUERY WITH c AS (SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
				WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last ORDER BY c_first
				OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last)
				LIMIT 1),
			o AS (SELECT o_id, o_entry_d, o_carrier_id FROM orders
				WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = (SELECT c.c_id FROM c)
				ORDER BY o_id DESC LIMIT 1)
		SELECT c.c_id::int, c.c_first::text, c.c_middle::text, c.c_last::text, (c.c_balance * 100)::bigint,
			o.o_id::int, o.o_entry_d::timestamp, coalesce(o.o_carrier_id, 0)::int,
			ol.ol_supply_w_id::int, ol.ol_i_id::int, ol.ol_quantity::int, (ol.ol_amount * 100)::bigint, ol.ol_delivery_d::timestamp
		FROM c CROSS JOIN o
		JOIN order_line ol ON ol.ol_w_id = p_w AND ol.ol_d_id = p_d AND ol.ol_o_id = o.o_id
		ORDER BY ol.ol_number;
	END IF;
END $$;

-- Delivery (2.7), deferred: one call delivers the oldest undelivered order
-- of each of the ten districts, all in one statement, the client path's
-- (sqlDelivery): delete the new_order rows, set the carriers, stamp the
-- lines and credit each customer with the sum of its order's lines. Returns
-- the delivered o_id per district, 0 for a skipped district.
CREATE OR REPLACE FUNCTION pgoltp_delivery(p_w int, p_carrier int) RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE
	v_out int[];
BEGIN
	WITH no AS (
			DELETE FROM new_order
				USING (SELECT d, (SELECT min(no_o_id) FROM new_order WHERE no_w_id = p_w AND no_d_id = d) AS o
					FROM generate_series(1, 10) AS d) x
				WHERE no_w_id = p_w AND no_d_id = x.d AND no_o_id = x.o
			RETURNING no_d_id, no_o_id),
		o AS (UPDATE orders SET o_carrier_id = p_carrier FROM no
			WHERE o_w_id = p_w AND o_d_id = no.no_d_id AND o_id = no.no_o_id RETURNING o_d_id, o_id, o_c_id),
		ol AS (UPDATE order_line SET ol_delivery_d = localtimestamp FROM no
			WHERE ol_w_id = p_w AND ol_d_id = no.no_d_id AND ol_o_id = no.no_o_id RETURNING ol_d_id, ol_amount),
		c AS (UPDATE customer SET c_balance = c_balance + coalesce(s.amount, 0), c_delivery_cnt = c_delivery_cnt + 1
			FROM o LEFT JOIN (SELECT ol_d_id, sum(ol_amount) AS amount FROM ol GROUP BY ol_d_id) s ON s.ol_d_id = o.o_d_id
			WHERE c_w_id = p_w AND c_d_id = o.o_d_id AND c_id = o.o_c_id)
	SELECT array_agg(coalesce(o.o_id, 0) ORDER BY d) INTO v_out
		FROM generate_series(1, 10) AS d LEFT JOIN o ON o.o_d_id = d;
	RETURN v_out;
END $$;

-- Stock-Level (2.8), in one statement, the client path's (sqlStockLevel):
-- d_next_o_id is read by scalar subqueries in the same statement (one
-- snapshot), so the plan does not depend on its value and the cached
-- generic plan (the order-line range an index condition, 20 orders' lines
-- joined to stock by primary key) serves every call. With d_next_o_id read
-- into a variable first, the range's bounds were parameters, the generic
-- plan costed higher than the custom ones, and the statement was planned
-- again on every call.
CREATE OR REPLACE FUNCTION pgoltp_stock_level(p_w int, p_d int, p_threshold int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	v_low bigint;
BEGIN
	SELECT count(DISTINCT s.s_i_id) INTO v_low FROM order_line ol
		JOIN stock s ON s.s_w_id = p_w AND s.s_i_id = ol.ol_i_id
		WHERE ol.ol_w_id = p_w AND ol.ol_d_id = p_d
			AND ol.ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = p_w AND d_id = p_d)
			AND ol.ol_o_id >= (SELECT d_next_o_id FROM district WHERE d_w_id = p_w AND d_id = p_d) - 20
			AND s.s_quantity < p_threshold;
	RETURN v_low;
END $$;
