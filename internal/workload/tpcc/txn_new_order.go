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
	n := r.IntRange(5, 15)
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
		if a.supplyW != b.supplyW {
			return int(a.supplyW - b.supplyW)
		}
		return int(a.item - b.item)
	})
}

// New-Order statements of the client path, few so that the server parses,
// binds and executes little per transaction. Stock rows are read and updated
// in one statement (2.4.2.2: the s_quantity rule, s_ytd, s_order_cnt,
// s_remote_cnt); s_dist_xx depends on the district, so there is one variant
// per district. When an order names the same stock row twice, one UPDATE
// per line (in lock order) applies the rule line by line instead.
const (
	sqlNOHead = `WITH d AS (UPDATE district SET d_next_o_id = d_next_o_id + 1
			WHERE d_w_id = $1 AND d_id = $2 RETURNING d_tax, d_next_o_id - 1 AS o_id)
		SELECT d.d_tax::float8, d.o_id, c_discount::float8, c_last, c_credit, w_tax::float8
		FROM d, customer, warehouse
		WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	sqlNOItems = `SELECT i_id, (i_price * 100)::int, i_name, strpos(i_data, 'ORIGINAL') > 0
		FROM item WHERE i_id = ANY($1)`
	// sqlNOInsert inserts the order, its new_order row and its lines (2.4.2.2).
	sqlNOInsert = `WITH o AS (
			INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
			VALUES ($1, $2, $3, $4, localtimestamp, NULL, $5, $6)),
		n AS (INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3))
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
		SELECT $1, $2, $3, l.n, l.i, l.s, NULL, l.q, l.a * 0.01, l.di
		FROM unnest($7::int[], $8::int[], $9::int[], $10::int[], $11::int[], $12::text[]) AS l(n, i, s, q, a, di)`
	sqlNOStockSet = `s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END,
			s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4`
)

// sqlNOStockAll[d] updates all the order's stock rows of district d in one
// statement, visiting them in the array order (the lock order);
// sqlNOStockOne[d] updates one row.
var sqlNOStockAll, sqlNOStockOne = func() (all, one [districtsPerWarehouse + 1]string) {
	for d := 1; d <= districtsPerWarehouse; d++ {
		dist := fmt.Sprintf("s_dist_%02d", d)
		all[d] = `UPDATE stock SET ` + strings.NewReplacer("$3", "v.q", "$4", "v.r").Replace(sqlNOStockSet) + `
			FROM unnest($1::int[], $2::int[], $3::int[], $4::int[]) AS v(w, i, q, r)
			WHERE s_w_id = v.w AND s_i_id = v.i
			RETURNING s_w_id, s_i_id, s_quantity, ` + dist + `, strpos(s_data, 'ORIGINAL') > 0`
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
	price                       []int32 // cents, per line; -1 = item not found
	original                    []bool  // i_data has ORIGINAL, per line
	numbers, items, supply, qty []int32
	amounts, remote             []int32
	dist                        []string
	batch1, batch2              pgx.Batch
}

// newOrderClient runs a New-Order in two round trips: (1) BEGIN, district
// (read and increment d_next_o_id) with customer and warehouse, the items,
// and the stock updates in lock order; (2) the inserts and COMMIT, or
// ROLLBACK when an item was not found (clause 2.4.2.3: the unused item is
// discovered by reading the items). It reports rolledBack for the clause
// 2.4.1.4 rollbacks.
func (ss *session) newOrderClient(ctx context.Context, in *newOrderInput) (rolledBack bool, err error) {
	conn := ss.conn
	s := &ss.no
	n := len(in.lines)
	s.itemIDs, s.price, s.original = s.itemIDs[:0], s.price[:0], s.original[:0]
	s.items, s.supply, s.qty, s.remote = s.items[:0], s.supply[:0], s.qty[:0], s.remote[:0]
	s.dist = s.dist[:0]
	distinct := true
	for i, l := range in.lines {
		s.itemIDs = append(s.itemIDs, l.item)
		s.price = append(s.price, -1)
		s.original = append(s.original, false)
		s.items = append(s.items, l.item)
		s.supply = append(s.supply, l.supplyW)
		s.qty = append(s.qty, l.qty)
		r := int32(0)
		if l.supplyW != in.w {
			r = 1
		}
		s.remote = append(s.remote, r)
		s.dist = append(s.dist, "")
		if i > 0 && l.item == in.lines[i-1].item && l.supplyW == in.lines[i-1].supplyW {
			distinct = false
		}
	}

	b := &s.batch1
	b.QueuedQueries = b.QueuedQueries[:0]
	b.Queue("BEGIN")
	b.Queue(sqlNOHead, in.w, in.d, in.c)
	b.Queue(sqlNOItems, s.itemIDs)
	if distinct {
		b.Queue(sqlNOStockAll[in.d], s.supply, s.items, s.qty, s.remote)
	} else {
		for i := range in.lines {
			b.Queue(sqlNOStockOne[in.d], s.supply[i], s.items[i], s.qty[i], s.remote[i])
		}
	}
	br := conn.SendBatch(ctx, b)
	var (
		dTax, cDiscount, wTax float64
		oID                   int32
		cLast, cCredit        string
	)
	err = func() error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if err := br.QueryRow().Scan(&dTax, &oID, &cDiscount, &cLast, &cCredit, &wTax); err != nil {
			return fmt.Errorf("district/customer/warehouse: %w", err)
		}
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
					s.price[i], s.original[i] = cents, orig
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		statements := 1
		if !distinct {
			statements = n
		}
		next := 0 // with one UPDATE per line, its rows come in line order
		for range statements {
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
				for i := next; i < n; i++ {
					if s.items[i] == item && s.supply[i] == w && s.dist[i] == "" {
						s.dist[i] = dist
						// 2.4.2.2: brand-generic is 'B' when both carry ORIGINAL; shown, not stored.
						_ = s.original[i] && sOrig
						break
					}
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("stock: %w", err)
			}
			if !distinct {
				next++
			}
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}

	for _, p := range s.price {
		if p < 0 {
			_, err := conn.Exec(ctx, "ROLLBACK")
			return true, err
		}
	}

	s.numbers, s.amounts = s.numbers[:0], s.amounts[:0]
	var total int64
	for i, l := range in.lines {
		amount := l.qty * s.price[i] // ol_amount = qty × i_price, in cents
		total += int64(amount)
		s.numbers = append(s.numbers, int32(i+1))
		s.amounts = append(s.amounts, amount)
	}
	// 2.4.2.2: the total shown to the user.
	_ = float64(total) / 100 * (1 - cDiscount) * (1 + wTax + dTax)
	allLocal := 0
	if in.allLocal {
		allLocal = 1
	}
	b = &s.batch2
	b.QueuedQueries = b.QueuedQueries[:0]
	b.Queue(sqlNOInsert, oID, in.d, in.w, in.c, int32(n), allLocal,
		s.numbers, s.items, s.supply, s.qty, s.amounts, s.dist)
	b.Queue("COMMIT")
	return false, conn.SendBatch(ctx, b).Close()
}
