package tpcc

import (
	"context"
	"errors"
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

// New-Order statements of the client path. Each stock update reads and
// updates its row in one statement (2.4.2.2: s_quantity rule, s_ytd,
// s_order_cnt, s_remote_cnt); s_dist_xx depends on the district, so there
// is one variant per district.
const (
	sqlNODistrict = `UPDATE district SET d_next_o_id = d_next_o_id + 1
		WHERE d_w_id = $1 AND d_id = $2 RETURNING d_tax::float8, d_next_o_id - 1`
	sqlNOCustomer = `SELECT c_discount::float8, c_last, c_credit, w_tax::float8 FROM customer, warehouse
		WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	sqlNOItems = `SELECT i_id, (i_price * 100)::int, i_name, strpos(i_data, 'ORIGINAL') > 0
		FROM item WHERE i_id = ANY($1)`
	sqlNOOrder = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
		VALUES ($1, $2, $3, $4, localtimestamp, NULL, $5, $6)`
	sqlNONewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)`
	sqlNOLines    = `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
		ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
		SELECT $1, $2, $3, l.n, l.i, l.s, NULL, l.q, l.a * 0.01, l.di
		FROM unnest($4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::text[]) AS l(n, i, s, q, a, di)`
)

// sqlNOStock[d] is the stock update for district d (1..10).
var sqlNOStock = func() [districtsPerWarehouse + 1]string {
	var s [districtsPerWarehouse + 1]string
	for d := 1; d <= districtsPerWarehouse; d++ {
		s[d] = strings.ReplaceAll(`UPDATE stock SET
			s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END,
			s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4
			WHERE s_w_id = $1 AND s_i_id = $2
			RETURNING s_quantity, s_dist_XX, strpos(s_data, 'ORIGINAL') > 0`, "XX", fmt.Sprintf("%02d", d))
	}
	return s
}()

// newOrderScratch holds the per-connection buffers of the client path, reused
// by every New-Order so the hot path allocates little.
type newOrderScratch struct {
	itemIDs                     []int32
	price                       []int32 // cents, per line; -1 = item not found
	original                    []bool  // i_data has ORIGINAL, per line
	numbers, items, supply, qty []int32
	amounts                     []int32
	dist                        []string
	batch1, batch2              pgx.Batch
}

// newOrderClient runs a New-Order in two round trips: (1) BEGIN, district,
// customer and warehouse, the items, and the stock updates in lock order;
// (2) the inserts and COMMIT, or ROLLBACK when an item was not found
// (clause 2.4.2.3: the unused item is discovered by reading the items).
// It reports rolledBack for the clause 2.4.1.4 rollbacks.
func (ss *session) newOrderClient(ctx context.Context, in *newOrderInput) (rolledBack bool, err error) {
	conn := ss.conn
	s := &ss.no
	n := len(in.lines)
	s.itemIDs = s.itemIDs[:0]
	s.price = s.price[:0]
	s.original = s.original[:0]
	for _, l := range in.lines {
		s.itemIDs = append(s.itemIDs, l.item)
		s.price = append(s.price, -1)
		s.original = append(s.original, false)
	}

	b := &s.batch1
	b.QueuedQueries = b.QueuedQueries[:0]
	b.Queue("BEGIN")
	b.Queue(sqlNODistrict, in.w, in.d)
	b.Queue(sqlNOCustomer, in.w, in.d, in.c)
	b.Queue(sqlNOItems, s.itemIDs)
	for _, l := range in.lines {
		remote := 0
		if l.supplyW != in.w {
			remote = 1
		}
		b.Queue(sqlNOStock[in.d], l.supplyW, l.item, l.qty, remote)
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
		if err := br.QueryRow().Scan(&dTax, &oID); err != nil {
			return fmt.Errorf("district: %w", err)
		}
		if err := br.QueryRow().Scan(&cDiscount, &cLast, &cCredit, &wTax); err != nil {
			return fmt.Errorf("customer: %w", err)
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
		s.dist = s.dist[:0]
		for i := 0; i < n; i++ {
			var (
				qty   int32
				dist  string
				sOrig bool
			)
			err := br.QueryRow().Scan(&qty, &dist, &sOrig)
			if errors.Is(err, pgx.ErrNoRows) && s.price[i] < 0 {
				dist = "" // the unused item has no stock row either
			} else if err != nil {
				return fmt.Errorf("stock: %w", err)
			}
			s.dist = append(s.dist, dist)
			// 2.4.2.2: brand-generic is 'B' when both carry ORIGINAL; shown, not stored.
			_ = s.original[i] && sOrig
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}

	missing := false
	for _, p := range s.price {
		if p < 0 {
			missing = true
		}
	}
	if missing {
		_, err := conn.Exec(ctx, "ROLLBACK")
		return true, err
	}

	s.numbers, s.items, s.supply, s.qty, s.amounts = s.numbers[:0], s.items[:0], s.supply[:0], s.qty[:0], s.amounts[:0]
	var total int64
	for i, l := range in.lines {
		amount := l.qty * s.price[i] // ol_amount = qty × i_price, in cents
		total += int64(amount)
		s.numbers = append(s.numbers, int32(i+1))
		s.items = append(s.items, l.item)
		s.supply = append(s.supply, l.supplyW)
		s.qty = append(s.qty, l.qty)
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
	b.Queue(sqlNOOrder, oID, in.d, in.w, in.c, int32(n), allLocal)
	b.Queue(sqlNONewOrder, oID, in.d, in.w)
	b.Queue(sqlNOLines, oID, in.d, in.w, s.numbers, s.items, s.supply, s.qty, s.amounts, s.dist)
	b.Queue("COMMIT")
	return false, conn.SendBatch(ctx, b).Close()
}
