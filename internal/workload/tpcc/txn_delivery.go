package tpcc

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
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

// sqlDeliveryDistrict delivers the oldest undelivered order of one district
// (clause 2.7.4.2) in one statement: delete its new_order row, set the
// carrier, stamp its lines, and credit the customer with their sum. It returns
// no row when the district has no undelivered order (a skipped district).
// Delivery workers own disjoint warehouses, so no two Deliveries race for the
// same oldest new_order row.
const sqlDeliveryDistrict = `WITH no AS (
		DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2
			AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2)
		RETURNING no_o_id),
	o AS (UPDATE orders SET o_carrier_id = $3 FROM no
		WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = no.no_o_id RETURNING o_id, o_c_id),
	ol AS (UPDATE order_line SET ol_delivery_d = localtimestamp FROM no
		WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = no.no_o_id RETURNING ol_amount),
	c AS (UPDATE customer SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM ol),
			c_delivery_cnt = c_delivery_cnt + 1
		FROM o WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = o.o_c_id RETURNING c_id)
	SELECT o.o_id FROM o, c`

// deliveryClient runs one Delivery as one transaction of ten statements in
// one pipelined batch (one round trip).
func (ss *session) deliveryClient(ctx context.Context, req deliveryRequest, out *deliveryOutcome) error {
	conn, b := ss.conn, &ss.delivBatch
	b.QueuedQueries = b.QueuedQueries[:0]
	for d := int32(1); d <= districtsPerWarehouse; d++ {
		b.Queue(sqlDeliveryDistrict, req.w, d, req.carrier)
	}
	br := conn.SendBatch(ctx, b)
	var err error
	out.skipped = 0
	for d := 0; d < districtsPerWarehouse && err == nil; d++ {
		var oID int32
		err = br.QueryRow().Scan(&oID)
		if errors.Is(err, pgx.ErrNoRows) {
			oID, err = 0, nil
			out.skipped++
		}
		out.orders[d] = oID
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}
