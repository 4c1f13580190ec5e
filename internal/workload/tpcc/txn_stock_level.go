package tpcc

import (
	"context"
)

// stockLevelInput is what the terminal keys in for a Stock-Level (clause 2.8.1):
// its own fixed district and a threshold random [10..20].
type stockLevelInput struct {
	w, d      int32
	threshold int32
}

func (t *terminal) genStockLevel(in *stockLevelInput) {
	in.w, in.d = int32(t.w), int32(t.slDistrict)
	in.threshold = int32(t.rand.IntRange(10, 20))
}

// sqlStockLevel counts the distinct items among the lines of the district's
// last 20 orders whose home-warehouse stock is below the threshold (clause
// 2.8.2.2), reading d_next_o_id in the same statement (one snapshot). The
// d_next_o_id reads are scalar subqueries, evaluated once before the join,
// so that the order-line range is an index condition with known bounds: as
// a join column it let the planner's custom plans (the first five per
// connection) guess a large range and hash-join a parallel sequential scan
// of the whole stock table (~9,000 pages instead of ~900).
const sqlStockLevel = `SELECT count(DISTINCT s.s_i_id) FROM order_line ol
	JOIN stock s ON s.s_w_id = $1 AND s.s_i_id = ol.ol_i_id
	WHERE ol.ol_w_id = $1 AND ol.ol_d_id = $2
		AND ol.ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2)
		AND ol.ol_o_id >= (SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2) - 20
		AND s.s_quantity < $3`

func (ss *session) stockLevelClient(ctx context.Context, in *stockLevelInput) (int64, error) {
	return ss.stockLevel(ctx, sqlStockLevel, in)
}

// stockLevel runs a Stock-Level statement. Clause 2.8.2.3 lets Stock-Level
// run at read committed: when the run uses a stronger isolation level, the
// statement goes in its own READ COMMITTED transaction (one round trip), so
// it neither aborts nor makes others abort with serialization failures.
// The count is also left in ss.out.sl (clause 2.8.3.3).
func (ss *session) stockLevel(ctx context.Context, sql string, in *stockLevelInput) (int64, error) {
	low := &ss.out.sl.LowStock
	*low = 0
	if !ss.slOwnTxn {
		err := ss.conn.QueryRow(ctx, sql, in.w, in.d, in.threshold).Scan(low)
		return *low, err
	}
	b := &ss.slBatch
	b.QueuedQueries = b.QueuedQueries[:0]
	b.Queue("BEGIN ISOLATION LEVEL READ COMMITTED")
	b.Queue(sql, in.w, in.d, in.threshold)
	b.Queue("COMMIT")
	br := ss.conn.SendBatch(ctx, b)
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(low)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return *low, err
}
