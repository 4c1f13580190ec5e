package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
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
		out.Lines = append(out.Lines, NewOrderLineOutput{SupplyW: l.supplyW, IID: l.item, Qty: l.qty})
		if i > 0 && l.item == in.lines[i-1].item && l.supplyW == in.lines[i-1].supplyW {
			name, sql = stmtSrvNewOrderRep, sqlSrvNewOrderRep
		}
	}
	// A prepared statement of its own: pgx drops a statement of its cache on
	// any error, and 1% of New-Orders end in one (the unused item's
	// rollback), so the next call would parse, describe and plan it again.
	// An explicitly prepared statement survives the error; preparing it
	// again with the same SQL is a map look-up in pgx. Only in pgx's mode
	// of named statements: through a pooler that cannot keep them, the DSN
	// sets another mode, and a statement prepared on one server connection
	// would be missing on the next.
	query := sql
	if conn.Config().DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
		if _, err := conn.Prepare(ctx, name, sql); err != nil {
			return false, err
		}
		query = name
	}
	rows, err := conn.Query(ctx, query, in.w, in.d, in.c, s.items, s.supply, s.qty)
	if err != nil {
		return newOrderRolledBack(err, out)
	}
	err = scanNewOrderServer(rows, out)
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	return newOrderRolledBack(err, out)
}

// scanNewOrderServer reads pgoltp_new_order's rows, one per line (r_n, in no
// order), into the lines, and computes ol_amount and the order's total from
// the prices as the client path does.
func scanNewOrderServer(rows pgx.Rows, out *NewOrderOutput) error {
	var (
		n, cents, sQty int32
		iName          string
		brand          bool
		sum            int64
		got            int
	)
	for rows.Next() {
		if err := rows.Scan(&out.OID, &out.CLast, &out.CCredit, &out.CDiscount, &out.WTax, &out.DTax,
			&out.EntryD, &n, &iName, &cents, &sQty, &brand); err != nil {
			return err
		}
		if n < 1 || int(n) > len(out.Lines) {
			return fmt.Errorf("pgoltp_new_order: line %d of %d", n, len(out.Lines))
		}
		l := &out.Lines[n-1]
		l.IName, l.IPriceCents, l.SQuantity = iName, int64(cents), sQty
		l.BrandGeneric = brandGeneric(brand, true)
		l.AmountCents = int64(l.Qty) * l.IPriceCents // ol_amount = qty × i_price
		sum += l.AmountCents
		got++
	}
	if rows.Err() == nil && got != len(out.Lines) {
		return fmt.Errorf("pgoltp_new_order: %d rows for %d lines", got, len(out.Lines))
	}
	out.TotalCents = orderTotalCents(sum, out.CDiscount, out.WTax, out.DTax)
	return nil
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
