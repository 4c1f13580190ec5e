-- pgoltp TPC-C server path: the five transactions as PL/pgSQL functions, one
-- call (one round trip) per transaction. Installed by "pgoltp tpcc run
-- --path server" into the TPC-C schema. The same rules as the client path
-- (shared/TPCC.md, clause 2); the client sorts New-Order lines by (supply
-- warehouse, item) so stock rows are always locked in the same order.

-- New-Order (2.4). Raises SQLSTATE TPC01 when an item is not found, which
-- rolls the whole transaction back (2.4.2.3); the driver counts it as a
-- completed New-Order that rolled back. Set-based: the items are read in one
-- statement, the stock rows updated in one (in the array order, which is the
-- lock order) unless the order names a stock row twice, and the lines
-- inserted in one.
CREATE OR REPLACE FUNCTION pgoltp_new_order(p_w int, p_d int, p_c int,
	p_items int[], p_supply int[], p_qty int[]) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE
	v_d_tax numeric; v_o_id int; v_w_tax numeric;
	v_discount numeric; v_last text; v_credit text;
	v_n int := cardinality(p_items);
	v_all_local int := CASE WHEN p_w = ALL (p_supply) THEN 1 ELSE 0 END;
	v_found int; v_distinct int; v_rows int;
	v_names text[]; v_data text[];
	v_total numeric;
	i int;
BEGIN
	UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
		RETURNING d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id;
	SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
	SELECT c_discount, c_last, c_credit INTO v_discount, v_last, v_credit
		FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
	INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
		VALUES (v_o_id, p_d, p_w, p_c, localtimestamp, NULL, v_n, v_all_local);
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
	-- 2.4.2.2: read each item's price, name and data; a missing one rolls back.
	SELECT count(*), array_agg(i_name), array_agg(i_data) INTO v_found, v_names, v_data
		FROM item WHERE i_id = ANY (p_items);
	SELECT count(DISTINCT x) INTO v_distinct FROM unnest(p_items) AS x;
	IF v_found < v_distinct THEN
		RAISE EXCEPTION 'item not found' USING ERRCODE = 'TPC01';
	END IF;
	SELECT count(DISTINCT (u.i, u.s)) INTO v_rows FROM unnest(p_items, p_supply) AS u(i, s);
	IF v_rows = v_n THEN
		UPDATE stock SET
			s_quantity = CASE WHEN s_quantity >= v.q + 10 THEN s_quantity - v.q ELSE s_quantity - v.q + 91 END,
			s_ytd = s_ytd + v.q, s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + CASE WHEN v.w <> p_w THEN 1 ELSE 0 END
			FROM unnest(p_supply, p_items, p_qty) AS v(w, i, q)
			WHERE s_w_id = v.w AND s_i_id = v.i;
	ELSE
		FOR i IN 1 .. v_n LOOP
			UPDATE stock SET
				s_quantity = CASE WHEN s_quantity >= p_qty[i] + 10 THEN s_quantity - p_qty[i]
					ELSE s_quantity - p_qty[i] + 91 END,
				s_ytd = s_ytd + p_qty[i], s_order_cnt = s_order_cnt + 1,
				s_remote_cnt = s_remote_cnt + CASE WHEN p_supply[i] <> p_w THEN 1 ELSE 0 END
				WHERE s_w_id = p_supply[i] AND s_i_id = p_items[i];
		END LOOP;
	END IF;
	-- The lines, with ol_dist_info from the (updated) stock rows.
	WITH ins AS (
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
		SELECT v_o_id, p_d, p_w, l.n, l.i, l.s, NULL, l.q, l.q * it.i_price,
			CASE p_d WHEN 1 THEN st.s_dist_01 WHEN 2 THEN st.s_dist_02 WHEN 3 THEN st.s_dist_03
				WHEN 4 THEN st.s_dist_04 WHEN 5 THEN st.s_dist_05 WHEN 6 THEN st.s_dist_06
				WHEN 7 THEN st.s_dist_07 WHEN 8 THEN st.s_dist_08 WHEN 9 THEN st.s_dist_09
				ELSE st.s_dist_10 END
		FROM unnest(p_items, p_supply, p_qty) WITH ORDINALITY AS l(i, s, q, n)
		JOIN item it ON it.i_id = l.i
		JOIN stock st ON st.s_w_id = l.s AND st.s_i_id = l.i
		RETURNING ol_amount)
	SELECT sum(ol_amount) INTO v_total FROM ins;
	RETURN v_total * (1 - v_discount) * (1 + v_w_tax + v_d_tax);
END $$;

-- Payment (2.5). p_c_id = 0 selects the customer by p_c_last: position
-- ceil(n/2) of the customers with that name ordered by c_first.
CREATE OR REPLACE FUNCTION pgoltp_payment(p_w int, p_d int, p_c_w int, p_c_d int,
	p_c_id int, p_c_last text, p_amount numeric) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE
	v_w_name text; v_d_name text; v_c int := p_c_id; v_n int;
	v_balance numeric;
BEGIN
	UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w RETURNING w_name INTO v_w_name;
	UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d RETURNING d_name INTO v_d_name;
	IF v_c = 0 THEN
		SELECT count(*) INTO v_n FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
		SELECT c_id INTO v_c FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
			ORDER BY c_first OFFSET (v_n - 1) / 2 LIMIT 1;
	END IF;
	UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = CASE WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' ||
			p_d || ' ' || p_w || ' ' || p_amount || ' | ' || c_data, 500) ELSE c_data END
		WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c
		RETURNING c_balance INTO v_balance;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'customer %/%/% not found', p_c_w, p_c_d, v_c;
	END IF;
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		VALUES (v_c, p_c_d, p_c_w, p_d, p_w, localtimestamp, p_amount, v_w_name || '    ' || v_d_name);
	RETURN v_balance;
END $$;

-- Order-Status (2.6): the customer, its most recent order and that order's
-- lines, one row per line.
CREATE OR REPLACE FUNCTION pgoltp_order_status(p_w int, p_d int, p_c_id int, p_c_last text)
RETURNS TABLE (c_id int, c_balance numeric, c_first text, c_middle text, c_last text,
	o_id int, o_entry_d timestamp, o_carrier_id int,
	ol_i_id int, ol_supply_w_id int, ol_quantity int, ol_amount numeric, ol_delivery_d timestamp)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	v_c int := p_c_id; v_n int;
	v_balance numeric; v_first text; v_middle text; v_last text;
	v_o int; v_entry timestamp; v_carrier int;
BEGIN
	IF v_c = 0 THEN
		SELECT count(*) INTO v_n FROM customer cu
			WHERE cu.c_w_id = p_w AND cu.c_d_id = p_d AND cu.c_last = p_c_last;
		SELECT cu.c_id INTO v_c FROM customer cu
			WHERE cu.c_w_id = p_w AND cu.c_d_id = p_d AND cu.c_last = p_c_last
			ORDER BY cu.c_first OFFSET (v_n - 1) / 2 LIMIT 1;
	END IF;
	SELECT cu.c_balance, cu.c_first, cu.c_middle, cu.c_last INTO v_balance, v_first, v_middle, v_last
		FROM customer cu WHERE cu.c_w_id = p_w AND cu.c_d_id = p_d AND cu.c_id = v_c;
	SELECT o.o_id, o.o_entry_d, o.o_carrier_id INTO v_o, v_entry, v_carrier FROM orders o
		WHERE o.o_w_id = p_w AND o.o_d_id = p_d AND o.o_c_id = v_c ORDER BY o.o_id DESC LIMIT 1;
	RETURN QUERY SELECT v_c, v_balance, v_first, v_middle, v_last, v_o, v_entry, v_carrier,
		ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount::numeric, ol.ol_delivery_d
		FROM order_line ol WHERE ol.ol_w_id = p_w AND ol.ol_d_id = p_d AND ol.ol_o_id = v_o;
END $$;

-- Delivery (2.7), deferred: one call delivers the oldest undelivered order
-- of each of the ten districts. Returns the delivered o_id per district,
-- 0 for a skipped district.
CREATE OR REPLACE FUNCTION pgoltp_delivery(p_w int, p_carrier int) RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE
	v_d int; v_o int; v_c int; v_sum numeric;
	v_out int[] := '{}';
BEGIN
	FOR v_d IN 1 .. 10 LOOP
		SELECT min(no_o_id) INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d;
		IF v_o IS NULL THEN
			v_out := v_out || 0;
			CONTINUE;
		END IF;
		DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
		UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o
			RETURNING o_c_id INTO v_c;
		UPDATE order_line SET ol_delivery_d = localtimestamp
			WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
		SELECT coalesce(sum(ol_amount), 0) INTO v_sum FROM order_line
			WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
		UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
			WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
		v_out := v_out || v_o;
	END LOOP;
	RETURN v_out;
END $$;

-- Stock-Level (2.8).
CREATE OR REPLACE FUNCTION pgoltp_stock_level(p_w int, p_d int, p_threshold int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	v_next int; v_low bigint;
BEGIN
	SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
	SELECT count(DISTINCT s.s_i_id) INTO v_low FROM order_line ol
		JOIN stock s ON s.s_w_id = p_w AND s.s_i_id = ol.ol_i_id
		WHERE ol.ol_w_id = p_w AND ol.ol_d_id = p_d AND ol.ol_o_id < v_next AND ol.ol_o_id >= v_next - 20
			AND s.s_quantity < p_threshold;
	RETURN v_low;
END $$;
