package tpcc

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgtype"
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
// all three even at read committed: the carrier and the delivery dates are
// one picture (clause 3.4). Each row is one order line with the customer and
// order repeated. The server path (pgoltp_order_status) runs the same
// statement.
const (
	sqlOSTail = `),
	o AS (SELECT o_id, o_entry_d, o_carrier_id FROM orders
		WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = (SELECT c_id FROM c)
		ORDER BY o_id DESC LIMIT 1)
	SELECT c.c_id, c.c_first, c.c_middle, c.c_last, (c.c_balance * 100)::int8,
		o.o_id, o.o_entry_d, coalesce(o.o_carrier_id, 0),
		ol.ol_supply_w_id, ol.ol_i_id, ol.ol_quantity, (ol.ol_amount * 100)::int8, ol.ol_delivery_d
	FROM c CROSS JOIN o
	JOIN order_line ol ON ol.ol_w_id = $1 AND ol.ol_d_id = $2 AND ol.ol_o_id = o.o_id
	ORDER BY ol.ol_number`
	sqlOSByID = `WITH c AS (SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
		WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3::int` + sqlOSTail
	sqlOSByName = `WITH c AS (SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
		WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text ORDER BY c_first
		OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text)
		LIMIT 1` + sqlOSTail
)

// orderStatusClient runs an Order-Status in one round trip; the output of
// clause 2.6.3.3 is left in ss.out.os.
func (ss *session) orderStatusClient(ctx context.Context, in *orderStatusInput) error {
	if in.byName {
		return ss.readOrderStatus(ctx, sqlOSByName, in.w, in.d, in.last)
	}
	return ss.readOrderStatus(ctx, sqlOSByID, in.w, in.d, in.c)
}

// readOrderStatus runs an Order-Status statement of either path (the same
// columns) and fills ss.out.os.
func (ss *session) readOrderStatus(ctx context.Context, sql string, args ...any) error {
	out := &ss.out.os
	out.Lines = out.Lines[:0]
	rows, err := ss.conn.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var delivered pgtype.Timestamp
	for rows.Next() {
		out.Lines = append(out.Lines, OrderStatusLineOutput{})
		l := &out.Lines[len(out.Lines)-1]
		if err := rows.Scan(&out.CID, &out.CFirst, &out.CMiddle, &out.CLast, &out.CBalanceCents,
			&out.OID, &out.EntryD, &out.Carrier,
			&l.SupplyW, &l.IID, &l.Qty, &l.AmountCents, &delivered); err != nil {
			return err
		}
		if delivered.Valid {
			l.DeliveryD = delivered.Time
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(out.Lines) == 0 {
		// Every customer has at least one order from the initial population.
		return errors.New("order-status found no order for the customer")
	}
	return nil
}
