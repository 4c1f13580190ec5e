package tpcc

import (
	"context"
	"time"
)

// deliveryRequest is a queued Delivery (clause 2.7.2): the terminal queues
// it and is answered at once; a delivery worker executes it later.
type deliveryRequest struct {
	w, carrier int32
	queued     time.Time // the scheduled start of the terminal's transaction
}

// deliveryOutcome is one executed Delivery: for the result log (2.7.2.2).
type deliveryOutcome struct {
	orders    [districtsPerWarehouse]int32 // delivered o_id per district; 0 = skipped
	skipped   int
	completed time.Time
}

// sqlDelivery delivers the oldest undelivered order of each of the ten
// districts (clause 2.7.4.2) in one statement: delete their new_order rows,
// set the carrier, stamp their lines, and credit each customer with the sum
// of its order's lines (summed from the updated lines, not read again). It
// returns the delivered o_id per district in district order, 0 for a district
// with no undelivered order (skipped). The steps run in that order (the
// final SELECT pulls o, which pulls no; ol and c run at the end of the
// statement), over all districts at once: one statement instead of ten. The
// plan is nested loops over the ten districts with index scans. Delivery
// workers own disjoint warehouses, so no two Deliveries race for the same
// oldest new_order row. The server path (pgoltp_delivery) runs the same
// statement.
const sqlDelivery = `WITH no AS (
		DELETE FROM new_order
			USING (SELECT d, (SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = d) AS o
				FROM generate_series(1, 10) AS d) x
			WHERE no_w_id = $1 AND no_d_id = x.d AND no_o_id = x.o
		RETURNING no_d_id, no_o_id),
	o AS (UPDATE orders SET o_carrier_id = $2 FROM no
		WHERE o_w_id = $1 AND o_d_id = no.no_d_id AND o_id = no.no_o_id RETURNING o_d_id, o_id, o_c_id),
	ol AS (UPDATE order_line SET ol_delivery_d = localtimestamp FROM no
		WHERE ol_w_id = $1 AND ol_d_id = no.no_d_id AND ol_o_id = no.no_o_id RETURNING ol_d_id, ol_amount),
	c AS (UPDATE customer SET c_balance = c_balance + coalesce(s.amount, 0), c_delivery_cnt = c_delivery_cnt + 1
		FROM o LEFT JOIN (SELECT ol_d_id, sum(ol_amount) AS amount FROM ol GROUP BY ol_d_id) s ON s.ol_d_id = o.o_d_id
		WHERE c_w_id = $1 AND c_d_id = o.o_d_id AND c_id = o.o_c_id)
	SELECT array_agg(coalesce(o.o_id, 0) ORDER BY d) FROM generate_series(1, 10) AS d LEFT JOIN o ON o.o_d_id = d`

// deliveryClient runs one Delivery as one statement (one round trip).
func (ss *session) deliveryClient(ctx context.Context, req deliveryRequest, out *deliveryOutcome) error {
	return ss.readDelivery(ctx, sqlDelivery, req, out)
}

// readDelivery runs a Delivery statement of either path (the same result:
// the delivered o_id per district, 0 when skipped) and fills out.
func (ss *session) readDelivery(ctx context.Context, sql string, req deliveryRequest, out *deliveryOutcome) error {
	var orders []int32
	if err := ss.conn.QueryRow(ctx, sql, req.w, req.carrier).Scan(&orders); err != nil {
		return err
	}
	out.skipped = 0
	for d := range out.orders {
		out.orders[d] = 0
		if d < len(orders) {
			out.orders[d] = orders[d]
		}
		if out.orders[d] == 0 {
			out.skipped++
		}
	}
	return nil
}
