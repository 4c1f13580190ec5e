package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// The server path: one call of a PL/pgSQL function per transaction (one
// round trip), with the same inputs as the client path and the same outputs.
const (
	sqlSrvNewOrder    = `SELECT * FROM pgoltp_new_order($1, $2, $3, $4, $5, $6)`
	sqlSrvNewOrderRep = `SELECT * FROM pgoltp_new_order_repeated($1, $2, $3, $4, $5, $6)`
	sqlSrvPayment     = `SELECT * FROM pgoltp_payment($1, $2, $3, $4, $5, $6, $7::numeric)`
	sqlSrvOrderStatus = `SELECT * FROM pgoltp_order_status($1, $2, $3, $4)`
	sqlSrvDelivery    = `SELECT pgoltp_delivery($1, $2)`
	sqlSrvStockLevel  = `SELECT pgoltp_stock_level($1, $2, $3)`

	stmtSrvNewOrder    = "pgoltp_new_order" // sqlSrvNewOrder's prepared statement
	stmtSrvNewOrderRep = "pgoltp_new_order_repeated"
)

// newOrderServer runs pgoltp_new_order and leaves the output of clause
// 2.4.3.3 (2.4.3.4 when it rolled back) in ss.out.no.
func (ss *session) newOrderServer(ctx context.Context, in *newOrderInput) (rolledBack bool, err error) {
	conn := ss.conn
	s := &ss.no
	out := &ss.out.no
	out.reset(in)
	s.items, s.supply, s.qty = s.items[:0], s.supply[:0], s.qty[:0]
	// The lines are sorted by (supply warehouse, item): a stock row named
	// twice is named by neighbours, and such an order (0.9%) has a function
	// of its own, so that pgoltp_new_order checks nothing line by line.
	name, sql := stmtSrvNewOrder, sqlSrvNewOrder
	for i, l := range in.lines {
		s.items = append(s.items, l.item)
		s.supply = append(s.supply, l.supplyW)
		s.qty = append(s.qty, l.qty)
		if i > 0 && l.item == in.lines[i-1].item && l.supplyW == in.lines[i-1].supplyW {
			name, sql = stmtSrvNewOrderRep, sqlSrvNewOrderRep
		}
	}
	// A prepared statement of its own: pgx drops a statement of its cache on
	// any error, and 1% of New-Orders end in one (the unused item's
	// rollback), so the next call would parse, describe and plan it again.
	// An explicitly prepared statement survives the error; preparing it
	// again with the same SQL is a map look-up in pgx.
	if _, err := conn.Prepare(ctx, name, sql); err != nil {
		return false, err
	}
	rows, err := conn.Query(ctx, name, in.w, in.d, in.c, s.items, s.supply, s.qty)
	if err != nil {
		return newOrderRolledBack(err, out)
	}
	var brand bool
	for rows.Next() {
		out.Lines = append(out.Lines, NewOrderLineOutput{})
		l := &out.Lines[len(out.Lines)-1]
		if err := rows.Scan(&out.OID, &out.CLast, &out.CCredit, &out.CDiscount, &out.WTax, &out.DTax,
			&out.EntryD, &out.TotalCents,
			&l.SupplyW, &l.IID, &l.IName, &l.Qty, &l.SQuantity, &brand, &l.IPriceCents, &l.AmountCents); err != nil {
			rows.Close()
			return false, err
		}
		l.BrandGeneric = brandGeneric(brand, true)
	}
	rows.Close()
	return newOrderRolledBack(rows.Err(), out)
}

// newOrderRolledBack tells pgoltp_new_order's rollback on the unused item
// (clause 2.4.2.3) from an error, and fills the output of 2.4.3.4 from it.
func newOrderRolledBack(err error, out *NewOrderOutput) (bool, error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == errItemNotFound {
		// DETAIL is "o_id c_credit c_last" (plpgsql.sql).
		var oID int
		if _, serr := fmt.Sscan(pgErr.Detail, &oID, &out.CCredit, &out.CLast); serr != nil {
			return true, fmt.Errorf("new-order rollback detail %q: %w", pgErr.Detail, serr)
		}
		out.OID = int32(oID)
		out.rolledBack()
		return true, nil
	}
	return false, err
}

// paymentServer runs pgoltp_payment and leaves the output of clause 2.5.3.3
// in ss.out.pay.
func (ss *session) paymentServer(ctx context.Context, in *paymentInput) error {
	return ss.readPayment(ctx, sqlSrvPayment, in)
}

// orderStatusServer runs pgoltp_order_status and leaves the output of
// clause 2.6.3.3 in ss.out.os.
func (ss *session) orderStatusServer(ctx context.Context, in *orderStatusInput) error {
	return ss.readOrderStatus(ctx, sqlSrvOrderStatus, in.w, in.d, in.c, in.last)
}

func (ss *session) deliveryServer(ctx context.Context, req deliveryRequest, out *deliveryOutcome) error {
	return ss.readDelivery(ctx, sqlSrvDelivery, req, out)
}

func (ss *session) stockLevelServer(ctx context.Context, in *stockLevelInput) (int64, error) {
	return ss.stockLevel(ctx, sqlSrvStockLevel, in)
}
