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

// Payment statements. The customer update prepends the clause 2.5.2.2 BC
// history to c_data (keeping 500 characters) and inserts the history row
// with h_data = w_name + 4 spaces + d_name in the same statement. By last
// name, the customer is the one at position ⌈n/2⌉ of those with that name
// ordered by c_first (2.5.2.2), i.e. element (n+1)/2 of their c_ids in that
// order: one scan of the name's customers, not one to count and one to skip.
const (
	sqlPayWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + $2::numeric WHERE w_id = $1
		RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip`
	sqlPayDistrict = `UPDATE district SET d_ytd = d_ytd + $3::numeric WHERE d_w_id = $1 AND d_id = $2
		RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip`
	sqlPayCustomerTail = `
		RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
			c_phone, c_since, c_credit, (c_credit_lim * 100)::int8, (c_discount * 10000)::int8, (c_balance * 100)::int8,
			CASE WHEN c_credit = 'BC' THEN left(c_data, 200) ELSE '' END AS c_data_200
	), h AS (
		INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		SELECT c_id, $4::int, $3::int, $2::int, $1::int, localtimestamp, $5::numeric,
			(SELECT w_name FROM warehouse WHERE w_id = $1::int) || '    ' ||
			(SELECT d_name FROM district WHERE d_w_id = $1::int AND d_id = $2::int)
		FROM c
	)
	SELECT * FROM c`
	sqlPayCustomerHead = `WITH c AS (
		UPDATE customer SET c_balance = c_balance - $5::numeric, c_ytd_payment = c_ytd_payment + $5::numeric,
			c_payment_cnt = c_payment_cnt + 1,
			c_data = CASE WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' ||
				$2::int || ' ' || $1::int || ' ' || $5::numeric || ' | ' || c_data, 500) ELSE c_data END
		WHERE c_w_id = $3::int AND c_d_id = $4::int AND c_id = `
	sqlPayCustomerByID   = sqlPayCustomerHead + `$6::int` + sqlPayCustomerTail
	sqlPayCustomerByName = sqlPayCustomerHead + `(
			SELECT (array_agg(c_id ORDER BY c_first))[(count(*) + 1) / 2]
			FROM customer WHERE c_w_id = $3::int AND c_d_id = $4::int AND c_last = $6::text)` + sqlPayCustomerTail
)

// paymentClient runs a Payment in one round trip: the three statements in
// one pipelined batch, which PostgreSQL runs as one implicit transaction.
// Lock order is warehouse, district, customer for every Payment. The output
// of clause 2.5.3.3 is left in ss.out.pay.
func (ss *session) paymentClient(ctx context.Context, in *paymentInput) error {
	conn := ss.conn
	b := &ss.payBatch
	b.QueuedQueries = b.QueuedQueries[:0]
	b.Queue(sqlPayWarehouse, in.w, in.amount)
	b.Queue(sqlPayDistrict, in.w, in.d, in.amount)
	if in.byName {
		b.Queue(sqlPayCustomerByName, in.w, in.d, in.cw, in.cd, in.amount, in.last)
	} else {
		b.Queue(sqlPayCustomerByID, in.w, in.d, in.cw, in.cd, in.amount, in.c)
	}
	br := conn.SendBatch(ctx, b)
	res := &ss.out.pay
	err := br.QueryRow().Scan(&res.WName, &res.WStreet1, &res.WStreet2, &res.WCity, &res.WState, &res.WZip)
	if err == nil {
		err = br.QueryRow().Scan(&res.DName, &res.DStreet1, &res.DStreet2, &res.DCity, &res.DState, &res.DZip)
	}
	if err == nil {
		err = br.QueryRow().Scan(res.customerFields()...)
		if err != nil {
			err = fmt.Errorf("payment customer: %w", err)
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}
