package tpcc

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// The server path: one call of a PL/pgSQL function per transaction (one
// round trip), with the same inputs as the client path.
const (
	sqlSrvNewOrder    = `SELECT pgoltp_new_order($1, $2, $3, $4, $5, $6)::float8`
	sqlSrvPayment     = `SELECT pgoltp_payment($1, $2, $3, $4, $5, $6, $7::numeric)::float8`
	sqlSrvOrderStatus = `SELECT c_id, c_balance::float8, o_id, ol_i_id, ol_quantity, ol_amount::float8,
		ol_delivery_d FROM pgoltp_order_status($1, $2, $3, $4)`
	sqlSrvDelivery   = `SELECT pgoltp_delivery($1, $2)`
	sqlSrvStockLevel = `SELECT pgoltp_stock_level($1, $2, $3)`
)

func (ss *session) newOrderServer(ctx context.Context, in *newOrderInput) (rolledBack bool, err error) {
	conn := ss.conn
	s := &ss.no
	s.items, s.supply, s.qty = s.items[:0], s.supply[:0], s.qty[:0]
	for _, l := range in.lines {
		s.items = append(s.items, l.item)
		s.supply = append(s.supply, l.supplyW)
		s.qty = append(s.qty, l.qty)
	}
	var total float64
	err = conn.QueryRow(ctx, sqlSrvNewOrder, in.w, in.d, in.c, s.items, s.supply, s.qty).Scan(&total)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == errItemNotFound {
		return true, nil
	}
	return false, err
}

func (ss *session) paymentServer(ctx context.Context, in *paymentInput) error {
	conn := ss.conn
	var balance float64
	return conn.QueryRow(ctx, sqlSrvPayment, in.w, in.d, in.cw, in.cd, in.c, in.last, in.amount).Scan(&balance)
}

func (ss *session) orderStatusServer(ctx context.Context, in *orderStatusInput) (int, error) {
	conn := ss.conn
	rows, err := conn.Query(ctx, sqlSrvOrderStatus, in.w, in.d, in.c, in.last)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var (
		cID, oID, iID, qty int32
		balance, amount    float64
		delivered          *time.Time
		lines              int
	)
	for rows.Next() {
		if err := rows.Scan(&cID, &balance, &oID, &iID, &qty, &amount, &delivered); err != nil {
			return lines, err
		}
		lines++
	}
	if err := rows.Err(); err != nil {
		return lines, err
	}
	if lines == 0 {
		return 0, errors.New("order-status found no order for the customer")
	}
	return lines, nil
}

func (ss *session) deliveryServer(ctx context.Context, req deliveryRequest, out *deliveryOutcome) error {
	conn := ss.conn
	var orders []int32
	if err := conn.QueryRow(ctx, sqlSrvDelivery, req.w, req.carrier).Scan(&orders); err != nil {
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

func (ss *session) stockLevelServer(ctx context.Context, in *stockLevelInput) (int64, error) {
	return ss.stockLevel(ctx, sqlSrvStockLevel, in)
}
