package tpcc

import (
	"context"
	"fmt"
	"strconv"
)

// paymentInput is what the terminal keys in for a Payment (clause 2.5.1).
type paymentInput struct {
	w, d    int32
	cw, cd  int32
	c       int32  // 0 when selected by last name
	last    string // set when selected by last name
	amount  string // h_amount, exact decimal text ("1234.56")
	remote  bool
	byName  bool
	cents   int
	lastBuf []byte
}

// genPayment draws the inputs of clause 2.5.1: 85% home customer, 15% a
// customer of another warehouse (2.5.1.2), 60% selected by last name with
// C_RUN (2.5.1.2), amount random [1.00..5,000.00] (2.5.1.3).
func (t *terminal) genPayment(in *paymentInput) {
	r := t.rand
	in.w = int32(t.w)
	in.d = int32(r.IntRange(1, districtsPerWarehouse))
	in.remote = t.warehouses > 1 && r.IntRange(1, 100) <= 15
	if in.remote {
		in.cw = int32(t.otherWarehouse())
		in.cd = int32(r.IntRange(1, districtsPerWarehouse))
	} else {
		in.cw, in.cd = in.w, in.d
	}
	in.byName = r.IntRange(1, 100) <= 60
	if in.byName {
		in.c = 0
		in.lastBuf = AppendLastName(in.lastBuf[:0], r.NURand(NURandCLast, 0, 999, t.c.CLast))
		in.last = string(in.lastBuf)
	} else {
		in.c = int32(r.NURand(NURandCID, 1, customersPerDistrict, t.c.CID))
		in.last = ""
	}
	in.cents = r.IntRange(100, 500000)
	in.amount = strconv.Itoa(in.cents/100) + "." + twoDigits(in.cents%100)
}

func twoDigits(n int) string {
	return string([]byte{byte('0' + n/10), byte('0' + n%10)})
}

// sqlPayment is a whole Payment (clause 2.5.2.2) in one statement: w_ytd
// += amount (returning the warehouse's name and address), d_ytd += amount
// (the district's), the customer's update, and the history row with h_data
// = w_name + 4 spaces + d_name. A BC customer gets c_id, c_d_id, c_w_id,
// d_id, w_id and the amount prepended to c_data, keeping 500 characters.
// $5 = 0 selects the customer by last name $6: the one at position ⌈n/2⌉ of
// those with that name ordered by c_first, i.e. element (n+1)/2 of their
// c_ids in that order, found in one scan of the name's customers.
//
// Lock order: every Payment locks the warehouse row, then the district row,
// then the customer row. The data flow enforces it: district is updated
// FROM w and customer FROM d, and a row is locked only when the join has
// produced it, which takes the previous CTE's row, whose update is done by
// then. The server path (pgoltp_payment) runs the same statement.
//
// No customer (a last name or c_id that does not exist) must fail the whole
// Payment, not commit w_ytd and d_ytd without a history row: the history
// insert, which always runs, then casts a text naming the customer to int,
// an error (SQLSTATE 22P02) that rolls the statement back in both paths
// alike. Plain SQL has no RAISE; the text comes from a subquery so that the
// planner cannot fold the cast into an error before any row is read.
const sqlPayment = `WITH w AS (
		UPDATE warehouse SET w_ytd = w_ytd + $7::numeric WHERE w_id = $1::int
		RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
	d AS (
		UPDATE district SET d_ytd = d_ytd + $7::numeric FROM w WHERE d_w_id = $1::int AND d_id = $2::int
		RETURNING w.*, d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
	c AS (
		UPDATE customer SET c_balance = c_balance - $7::numeric, c_ytd_payment = c_ytd_payment + $7::numeric,
			c_payment_cnt = c_payment_cnt + 1,
			c_data = CASE WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' ||
				$2::int || ' ' || $1::int || ' ' || $7::numeric || ' | ' || c_data, 500) ELSE c_data END
		FROM d
		WHERE c_w_id = $3::int AND c_d_id = $4::int AND c_id = CASE WHEN $5::int <> 0 THEN $5::int ELSE (
			SELECT (array_agg(c_id ORDER BY c_first))[(count(*) + 1) / 2]
			FROM customer WHERE c_w_id = $3::int AND c_d_id = $4::int AND c_last = $6::text) END
		RETURNING d.*, c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
			c_phone, c_since, c_credit, (c_credit_lim * 100)::int8, (c_discount * 10000)::int8, (c_balance * 100)::int8,
			CASE WHEN c_credit = 'BC' THEN left(c_data, 200) ELSE '' END AS c_data_200),
	h AS (
		INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		SELECT c_id, $4::int, $3::int, $2::int, $1::int, localtimestamp, $7::numeric, w_name || '    ' || d_name
		FROM c
		UNION ALL
		SELECT (SELECT 'payment: no customer ' || $3::int || '/' || $4::int || '/' ||
			CASE WHEN $5::int <> 0 THEN $5::int::text ELSE $6::text END)::int, 0, 0, 0, 0, NULL, 0, NULL
		WHERE NOT EXISTS (SELECT FROM c))
	SELECT * FROM c`

// paymentClient runs a Payment as one statement (one round trip, its own
// implicit transaction). The output of clause 2.5.3.3 is left in ss.out.pay.
func (ss *session) paymentClient(ctx context.Context, in *paymentInput) error {
	return ss.readPayment(ctx, sqlPayment, in)
}

// readPayment runs a Payment statement of either path (the same columns:
// the warehouse's and district's names and addresses, then the customer's
// fields) and fills ss.out.pay.
func (ss *session) readPayment(ctx context.Context, sql string, in *paymentInput) error {
	o := &ss.out.pay
	err := ss.conn.QueryRow(ctx, sql, in.w, in.d, in.cw, in.cd, in.c, in.last, in.amount).Scan(
		append([]any{&o.WName, &o.WStreet1, &o.WStreet2, &o.WCity, &o.WState, &o.WZip,
			&o.DName, &o.DStreet1, &o.DStreet2, &o.DCity, &o.DState, &o.DZip}, o.customerFields()...)...)
	if err != nil {
		return fmt.Errorf("payment: %w", err)
	}
	return nil
}
