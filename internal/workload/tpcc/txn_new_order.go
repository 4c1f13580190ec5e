package tpcc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// orderLine is one requested line of a New-Order.
type orderLine struct {
	item, supplyW, qty int32
}

// newOrderInput is what the terminal "keys in" for a New-Order (clause 2.4.1).
type newOrderInput struct {
	w, d, c  int32
	lines    []orderLine // sorted by (supply warehouse, item): the lock order
	allLocal bool
	remote   int // lines supplied by another warehouse
}

// genNewOrder draws the inputs of clause 2.4.1. The lines are sorted by
// (supply warehouse, item) so that every transaction locks stock rows in the
// same order and New-Orders cannot deadlock each other; ol_number follows
// that order. The line order carries no meaning in the standard.
func (t *terminal) genNewOrder(in *newOrderInput) {
	r := t.rand
	in.w = int32(t.w)
	in.d = int32(r.IntRange(1, districtsPerWarehouse))
	in.c = int32(r.NURand(NURandCID, 1, customersPerDistrict, t.c.CID))
	n := r.IntRange(minOLCnt, maxOLCnt)
	rollback := r.IntRange(1, 100) == 1 // 2.4.1.4: 1% roll back
	in.lines = in.lines[:0]
	in.allLocal, in.remote = true, 0
	for i := 0; i < n; i++ {
		l := orderLine{
			item:    int32(r.NURand(NURandOLIID, 1, itemCount, t.c.OLIID)),
			supplyW: int32(t.w),
			qty:     int32(r.IntRange(1, 10)),
		}
		if rollback && i == n-1 {
			l.item = unusedItem
		}
		// 2.4.1.5.2: 1% of lines come from a remote warehouse when there is one.
		if t.warehouses > 1 && r.IntRange(1, 100) == 1 {
			l.supplyW = int32(t.otherWarehouse())
			in.allLocal = false
			in.remote++
		}
		in.lines = append(in.lines, l)
	}
	slices.SortFunc(in.lines, func(a, b orderLine) int {
		// 2.4.1.5.1: the unused item is the order's last item; it locks no
		// stock row, so it stays last whatever its supply warehouse.
		if (a.item == unusedItem) != (b.item == unusedItem) {
			if a.item == unusedItem {
				return 1
			}
			return -1
		}
		if a.supplyW != b.supplyW {
			return int(a.supplyW - b.supplyW)
		}
		return int(a.item - b.item)
	})
}

// New-Order statements of the client path, few so that the server parses,
// binds and executes little per transaction. The steps follow clause 2.4.2.2
// in order, each done for all lines at once: warehouse, district (read and
// increment d_next_o_id), customer, the orders and new_order rows; then the
// items, the stock rows (read and updated in one statement: the s_quantity
// rule, s_ytd, s_order_cnt, s_remote_cnt) and the order lines. s_dist_xx
// depends on the district, so there is one stock variant per district. When
// an order names the same stock row twice, one UPDATE per line (in lock
// order) applies the rule line by line instead. The server path
// (plpgsql.sql) takes the same steps in the same order.
const (
	sqlNOHead = `WITH w AS (SELECT w_tax FROM warehouse WHERE w_id = $1),
		d AS (UPDATE district SET d_next_o_id = d_next_o_id + 1
			WHERE d_w_id = $1 AND d_id = $2 RETURNING d_tax, d_next_o_id - 1 AS o_id),
		c AS (SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3),
		o AS (INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
			SELECT d.o_id, $2::int, $1::int, $3::int, localtimestamp, NULL, $4::int, $5::int FROM d RETURNING o_entry_d),
		n AS (INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT d.o_id, $2::int, $1::int FROM d)
		SELECT (w.w_tax * 10000)::int8, (d.d_tax * 10000)::int8, d.o_id,
			(c.c_discount * 10000)::int8, c.c_last, c.c_credit, o.o_entry_d
		FROM w, d, c, o`
	// sqlNOItems reads the items (2.4.2.2); a missing one is the unused
	// item of 2.4.1.4.
	sqlNOItems = `SELECT i_id, (i_price * 100)::int, i_name, strpos(i_data, 'ORIGINAL') > 0
		FROM item WHERE i_id = ANY($1)`
	// sqlNOLines inserts the order lines (2.4.2.2).
	sqlNOLines = `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
		SELECT $1::int, $2::int, $3::int, l.n, l.i, l.s, NULL, l.q, l.a * 0.01, l.di
		FROM unnest($4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::text[]) AS l(n, i, s, q, a, di)`
	sqlNOStockSet = `s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END,
			s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4`
)

// sqlNOItemsStock[d] reads the items and updates all the order's stock rows
// of district d in one statement, one output row per line in line order:
// the item's fields (i_found false for an item not found, the unused item of
// 2.4.1.4) and the stock row's (s_found false when no row was updated). The
// UPDATE visits the rows in the array order (the lock order); the items are
// read-only, so reading them in the same statement as the stock updates
// changes nothing the transaction shows. sqlNOStockOne[d] updates one row,
// after sqlNOItems, when an order names the same stock row twice. The
// unused item has no stock row.
var sqlNOItemsStock, sqlNOStockOne = func() (all, one [districtsPerWarehouse + 1]string) {
	for d := 1; d <= districtsPerWarehouse; d++ {
		dist := fmt.Sprintf("s_dist_%02d", d)
		all[d] = `WITH i AS (SELECT i_id, (i_price * 100)::int AS cents, i_name, strpos(i_data, 'ORIGINAL') > 0 AS orig
				FROM item WHERE i_id = ANY($2::int[])),
			s AS (UPDATE stock SET ` + strings.NewReplacer("$3", "v.q", "$4", "v.r").Replace(sqlNOStockSet) + `
				FROM unnest($1::int[], $2::int[], $3::int[], $4::int[]) AS v(w, i, q, r)
				WHERE s_w_id = v.w AND s_i_id = v.i
				RETURNING s_w_id, s_i_id, s_quantity, ` + dist + ` AS dist, strpos(s_data, 'ORIGINAL') > 0 AS orig)
			SELECT i.i_id IS NOT NULL, coalesce(i.cents, 0), coalesce(i.i_name, ''), coalesce(i.orig, false),
				s.s_i_id IS NOT NULL, coalesce(s.s_quantity, 0), coalesce(s.dist, ''), coalesce(s.orig, false)
			FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS l(w, i, n)
			LEFT JOIN i ON i.i_id = l.i
			LEFT JOIN s ON s.s_w_id = l.w AND s.s_i_id = l.i
			ORDER BY l.n`
		one[d] = `UPDATE stock SET ` + sqlNOStockSet + `
			WHERE s_w_id = $1 AND s_i_id = $2
			RETURNING s_w_id, s_i_id, s_quantity, ` + dist + `, strpos(s_data, 'ORIGINAL') > 0`
	}
	return all, one
}()

// newOrderScratch holds the per-connection buffers, reused by every
// New-Order so the hot path allocates little.
type newOrderScratch struct {
	itemIDs                     []int32
	original                    []bool // i_data has ORIGINAL, per line
	found                       []bool // the line's item exists
	stocked                     []bool // the line's stock row was updated
	numbers, items, supply, qty []int32
	amounts, remote             []int32
	dist                        []string
	batch1, batch2              pgx.Batch
}

// newOrderClient runs a New-Order in two round trips: (1) BEGIN, the
// warehouse, district and customer with the orders and new_order inserts,
// then the items with the stock updates in lock order (one statement); (2)
// the order lines and COMMIT. When an item is not found (the unused item of clause 2.4.1.4,
// always the last line), every step before it has been done, and round trip
// (2) inserts the lines before it and rolls back (clause 2.4.2.3). The output
// of clause 2.4.3.3 is left in ss.out.no.
func (ss *session) newOrderClient(ctx context.Context, in *newOrderInput) (rolledBack bool, err error) {
	s, out := &ss.no, &ss.out.no
	out.reset(in)
	distinct := s.fill(in, out)
	b := s.queueFirst(in, distinct)
	br := ss.conn.SendBatch(ctx, b)
	err = s.readFirst(br, out, len(in.lines), distinct)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	return s.finish(ctx, ss.conn, in, out)
}

// fill resets the scratch for the order's lines and the output's lines, and
// says whether every line is distinct from the one before (then one UPDATE
// updates all the stock rows).
func (s *newOrderScratch) fill(in *newOrderInput, out *NewOrderOutput) (distinct bool) {
	s.itemIDs, s.original, s.found, s.stocked = s.itemIDs[:0], s.original[:0], s.found[:0], s.stocked[:0]
	s.items, s.supply, s.qty, s.remote = s.items[:0], s.supply[:0], s.qty[:0], s.remote[:0]
	s.dist = s.dist[:0]
	distinct = true
	for i, l := range in.lines {
		s.itemIDs = append(s.itemIDs, l.item)
		s.original = append(s.original, false)
		s.found = append(s.found, false)
		s.stocked = append(s.stocked, false)
		s.items = append(s.items, l.item)
		s.supply = append(s.supply, l.supplyW)
		s.qty = append(s.qty, l.qty)
		r := int32(0)
		if l.supplyW != in.w {
			r = 1
		}
		s.remote = append(s.remote, r)
		s.dist = append(s.dist, "")
		out.Lines = append(out.Lines, NewOrderLineOutput{SupplyW: l.supplyW, IID: l.item, Qty: l.qty})
		if i > 0 && l.item == in.lines[i-1].item && l.supplyW == in.lines[i-1].supplyW {
			distinct = false
		}
	}
	return distinct
}

// queueFirst queues round trip (1): BEGIN, the head, then the items with
// the stock updates in lock order: one statement when the lines are
// distinct, else the items and one UPDATE per line.
func (s *newOrderScratch) queueFirst(in *newOrderInput, distinct bool) *pgx.Batch {
	allLocal := 0
	if in.allLocal {
		allLocal = 1
	}
	b := &s.batch1
	b.QueuedQueries = b.QueuedQueries[:0]
	b.Queue("BEGIN")
	b.Queue(sqlNOHead, in.w, in.d, in.c, int32(len(in.lines)), allLocal)
	if distinct {
		b.Queue(sqlNOItemsStock[in.d], s.supply, s.items, s.qty, s.remote)
	} else {
		b.Queue(sqlNOItems, s.itemIDs)
		for i := range in.lines {
			b.Queue(sqlNOStockOne[in.d], s.supply[i], s.items[i], s.qty[i], s.remote[i])
		}
	}
	return b
}

// readFirst reads round trip (1)'s results into the output.
func (s *newOrderScratch) readFirst(br pgx.BatchResults, out *NewOrderOutput, n int, distinct bool) error {
	if _, err := br.Exec(); err != nil {
		return err
	}
	if err := br.QueryRow().Scan(&out.WTax, &out.DTax, &out.OID, &out.CDiscount, &out.CLast, &out.CCredit,
		&out.EntryD); err != nil {
		return fmt.Errorf("warehouse/district/customer/orders: %w", err)
	}
	if distinct {
		return s.scanItemsStock(br, out)
	}
	if err := s.readItems(br, out); err != nil {
		return err
	}
	for next := range n { // one UPDATE per line: its rows come in line order
		if err := s.readStock(br, out, next); err != nil {
			return fmt.Errorf("stock: %w", err)
		}
	}
	return nil
}

// readItems reads the items found: name, price and whether i_data has ORIGINAL.
func (s *newOrderScratch) readItems(br pgx.BatchResults, out *NewOrderOutput) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	var (
		id, cents int32
		name      string
		orig      bool
	)
	for rows.Next() {
		if err := rows.Scan(&id, &cents, &name, &orig); err != nil {
			rows.Close()
			return err
		}
		for i, want := range s.itemIDs {
			if want == id {
				s.found[i], s.original[i] = true, orig
				out.Lines[i].IName, out.Lines[i].IPriceCents = name, int64(cents)
			}
		}
	}
	rows.Close()
	return rows.Err()
}

// readStock reads one stock UPDATE's rows into the lines from next on.
func (s *newOrderScratch) readStock(br pgx.BatchResults, out *NewOrderOutput, next int) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	var (
		w, item, qty int32
		dist         string
		sOrig        bool
	)
	for rows.Next() {
		if err := rows.Scan(&w, &item, &qty, &dist, &sOrig); err != nil {
			rows.Close()
			return err
		}
		for i := next; i < len(s.items); i++ {
			if s.items[i] == item && s.supply[i] == w && !s.stocked[i] {
				s.stocked[i], s.dist[i] = true, dist
				out.Lines[i].SQuantity = qty
				out.Lines[i].BrandGeneric = brandGeneric(s.original[i], sOrig)
				break
			}
		}
	}
	rows.Close()
	return rows.Err()
}

// finish is round trip (2): the order lines up to the first item not found
// (2.4.2.3: only the unused item's steps are skipped), then COMMIT, or
// ROLLBACK when an item was not found.
func (s *newOrderScratch) finish(ctx context.Context, conn *pgx.Conn, in *newOrderInput, out *NewOrderOutput) (rolledBack bool, err error) {
	n := len(in.lines)
	upTo := n
	for i, f := range s.found {
		if !f {
			upTo = i
			break
		}
	}
	s.numbers, s.amounts = s.numbers[:0], s.amounts[:0]
	var sum int64
	for i := range upTo {
		l := &out.Lines[i]
		l.AmountCents = int64(l.Qty) * l.IPriceCents // ol_amount = qty × i_price
		sum += l.AmountCents
		s.numbers = append(s.numbers, int32(i+1))
		s.amounts = append(s.amounts, int32(l.AmountCents))
	}
	b := &s.batch2
	b.QueuedQueries = b.QueuedQueries[:0]
	if upTo > 0 {
		b.Queue(sqlNOLines, out.OID, in.d, in.w, s.numbers, s.items[:upTo], s.supply[:upTo], s.qty[:upTo],
			s.amounts, s.dist[:upTo])
	}
	if upTo < n {
		b.Queue("ROLLBACK")
		err := conn.SendBatch(ctx, b).Close()
		out.rolledBack()
		return true, err
	}
	b.Queue("COMMIT")
	out.TotalCents = orderTotalCents(sum, out.CDiscount, out.WTax, out.DTax)
	return false, conn.SendBatch(ctx, b).Close()
}

// scanItemsStock reads sqlNOItemsStock's rows, one per line in line order.
func (s *newOrderScratch) scanItemsStock(br pgx.BatchResults, out *NewOrderOutput) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		cents, qty   int32
		name, dist   string
		iOrig, sOrig bool
		found, stock bool
	)
	i := 0
	for rows.Next() {
		if err := rows.Scan(&found, &cents, &name, &iOrig, &stock, &qty, &dist, &sOrig); err != nil {
			return err
		}
		if i >= len(out.Lines) {
			return fmt.Errorf("items/stock: more rows than the %d lines", len(out.Lines))
		}
		if found {
			s.found[i], s.original[i] = true, iOrig
			out.Lines[i].IName, out.Lines[i].IPriceCents = name, int64(cents)
		}
		if stock {
			s.stocked[i], s.dist[i] = true, dist
			out.Lines[i].SQuantity = qty
			out.Lines[i].BrandGeneric = brandGeneric(iOrig, sOrig)
		}
		i++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("items/stock: %w", err)
	}
	return nil
}

// brandGeneric is clause 2.4.2.2's brand-generic field.
func brandGeneric(itemOriginal, stockOriginal bool) byte {
	if itemOriginal && stockOriginal {
		return 'B'
	}
	return 'G'
}

// reset starts the output of a New-Order with its inputs.
func (o *NewOrderOutput) reset(in *newOrderInput) {
	lines := o.Lines[:0]
	*o = NewOrderOutput{W: in.w, D: in.d, C: in.c, OlCnt: int32(len(in.lines)), Lines: lines}
}

// rolledBack keeps what clause 2.4.3.4 displays for a rolled-back order:
// w_id, d_id, c_id, c_last, c_credit and o_id.
func (o *NewOrderOutput) rolledBack() {
	*o = NewOrderOutput{W: o.W, D: o.D, C: o.C, CLast: o.CLast, CCredit: o.CCredit, OID: o.OID,
		RolledBack: true, Lines: o.Lines[:0]}
}
