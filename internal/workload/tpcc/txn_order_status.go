package tpcc

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// orderStatusInput is what the terminal keys in for an Order-Status (clause 2.6.1).
type orderStatusInput struct {
	w, d    int32
	c       int32 // 0 when selected by last name
	last    string
	byName  bool
	lastBuf []byte
}

// genOrderStatus draws the inputs of clause 2.6.1: the home warehouse, a random
// district, the customer 60% by last name (C_RUN) and 40% by NURand id.
func (t *terminal) genOrderStatus(in *orderStatusInput) {
	r := t.rand
	in.w = int32(t.w)
	in.d = int32(r.IntRange(1, districtsPerWarehouse))
	in.byName = r.IntRange(1, 100) <= 60
	if in.byName {
		in.c = 0
		in.lastBuf = AppendLastName(in.lastBuf[:0], r.NURand(NURandCLast, 0, 999, t.c.CLast))
		in.last = string(in.lastBuf)
	} else {
		in.c = int32(r.NURand(NURandCID, 1, customersPerDistrict, t.c.CID))
		in.last = ""
	}
}

// Order-Status reads the customer, its most recent order (largest o_id) and
// that order's lines (clause 2.6.2.2) in one statement, so one snapshot sees
// all three even at read committed. Each row is one order line with the
// customer and order repeated.
const (
	sqlOSTail = `),
	o AS (SELECT o_id, o_entry_d, o_carrier_id FROM orders
		WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = (SELECT c_id FROM c)
		ORDER BY o_id DESC LIMIT 1)
	SELECT c.c_id, c.c_balance::float8, c.c_first, c.c_middle, c.c_last,
		o.o_id, o.o_entry_d, o.o_carrier_id,
		ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount::float8, ol.ol_delivery_d
	FROM c CROSS JOIN o
	JOIN order_line ol ON ol.ol_w_id = $1 AND ol.ol_d_id = $2 AND ol.ol_o_id = o.o_id`
	sqlOSByID = `WITH c AS (SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
		WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3::int` + sqlOSTail
	sqlOSByName = `WITH c AS (SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
		WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text ORDER BY c_first
		OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text)
		LIMIT 1` + sqlOSTail
)

// orderStatusClient runs an Order-Status in one round trip and returns the
// number of order lines read.
func (ss *session) orderStatusClient(ctx context.Context, in *orderStatusInput) (int, error) {
	conn := ss.conn
	var rows pgx.Rows
	var err error
	if in.byName {
		rows, err = conn.Query(ctx, sqlOSByName, in.w, in.d, in.last)
	} else {
		rows, err = conn.Query(ctx, sqlOSByID, in.w, in.d, in.c)
	}
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var (
		cID, oID, iID, supplyW, qty int32
		balance, amount             float64
		first, middle, last         string
		entry                       time.Time
		carrier                     *int32
		delivered                   *time.Time
		lines                       int
	)
	for rows.Next() {
		if err := rows.Scan(&cID, &balance, &first, &middle, &last, &oID, &entry, &carrier,
			&iID, &supplyW, &qty, &amount, &delivered); err != nil {
			return lines, err
		}
		lines++
	}
	if err := rows.Err(); err != nil {
		return lines, err
	}
	if lines == 0 {
		// Every customer has at least one order from the initial population.
		return 0, errors.New("order-status found no order for the customer")
	}
	return lines, nil
}
