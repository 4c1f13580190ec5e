package tpcc

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Reads on standbys (issue 31): with RunOptions.Reads, Order-Status and
// Stock-Level, the two read-only transactions, run on connections to the
// standbys (round-robin per connection); New-Order, Payment and Delivery
// stay on the primary. On either path: the server path's functions are
// installed on the primary and reach the standbys by replication (the run
// waits for the standbys to replay them before it opens their connections).

// readsNonCompliant is why a run with reads on standbys is not a TPC-C
// result, in the words of TPC-C revision 5.11 (clause 3.4; ../shared/TPCC.md
// does not give clause 3.4's text): the one relaxation the isolation
// clause grants a replicated copy is for the ITEM table in Isolation Test 7,
// whose step 8D has a transaction started after another's commit read the
// committed values, which a lagging standby may not have replayed.
const readsNonCompliant = `NON-COMPLIANT: Order-Status and Stock-Level read on standbys (--reads standby / --read-dsn), whose replay lags the primary, ` +
	`so a transaction may not see one that committed on the primary before it started. TPC-C 5.11 clause 3.4 allows a copy that lags ` +
	`only for the ITEM table: "updates to the ITEM table are not required to be propagated to other copies of the ITEM table. ` +
	`This relaxation of ACID properties on a replicated table is only valid under the above conditions and in the context of Isolation Test 7" ` +
	`(3.4.2.7, Comment 2), a test in which a transaction started after an update committed must read it ` +
	`("Verify that the prices read by transaction T4 match the values set by transaction T3", step 8D). ` +
	`Order-Status and Stock-Level read customer, orders, order_line, district and stock, not ITEM.`

// readKind says the transaction kind goes to a standby when reads do.
func readKind(kind int) bool { return kind == kindOrderStatus || kind == kindStockLevel }

// HasReadOnlyWork says the mix deals Order-Status or Stock-Level (the
// default deck does).
func (o RunOptions) HasReadOnlyWork() bool {
	return o.Weights == nil || (len(o.Weights) == numDealt && (o.Weights[kindOrderStatus] > 0 || o.Weights[kindStockLevel] > 0))
}

// validateReads refuses reads on standbys for a mix without read-only
// transactions, at serializable (a standby has no serializable reads), and
// in spec mode unless the run may be non-compliant.
func (o *RunOptions) validateReads() error {
	if !o.Reads.On() {
		return nil
	}
	name := o.Reads.Nodes[0].Name
	switch {
	case !o.HasReadOnlyWork():
		return field.New("Reads", name, "{} sends Order-Status and Stock-Level to a standby, and the mix %s has neither; give them weight in {Weights}", weightsString(o.Weights))
	case o.Isolation == "serializable":
		return field.New("Isolation", o.Isolation, "{} serializable cannot run on a standby (PostgreSQL has no serializable reads in recovery); use repeatable-read with {Reads}")
	case o.Mode == ModeSpec && !o.AllowNonCompliant:
		return field.New("Reads", name, "{} makes the run non-compliant (clause 3.4: a standby lags the primary); pass {AllowNonCompliant} to run it marked so")
	}
	return nil
}

// openReads opens the run's connections to the standbys: as many as to the
// primary (at least one per standby), each to the next standby in turn.
func (r *runner) openReads(ctx context.Context, opts RunOptions) error {
	if !opts.Reads.On() {
		return nil
	}
	if err := opts.Reads.CatchUp(ctx); err != nil {
		return err
	}
	var cfgs []*pgx.ConnConfig
	for _, n := range opts.Reads.Nodes {
		cfg, err := ConnConfig(n.DSN, opts.Schema)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
		cfg.RuntimeParams["application_name"] = "pgoltp tpcc run (reads)"
		cfg.RuntimeParams["default_transaction_isolation"] = isolationLevels[opts.Isolation]
		cfgs = append(cfgs, cfg)
	}
	r.readCounts = make([]atomic.Int64, len(cfgs))
	var next atomic.Int64
	var nodeOf sync.Map // a new connection's standby, from Connect to Setup
	size := max(opts.Conns, len(cfgs))
	pool, err := driver.NewPool(ctx, driver.PoolOptions{
		Size:     size,
		Recorder: r.rec,
		Connect: func(ctx context.Context) (*pgx.Conn, error) {
			node := opts.Reads.NodeOf(int(next.Add(1) - 1))
			conn, err := pgx.ConnectConfig(ctx, cfgs[node].Copy())
			if err == nil {
				nodeOf.Store(conn, node)
			}
			return conn, err
		},
		Setup: func(ctx context.Context, c *driver.Conn) error {
			node, _ := nodeOf.LoadAndDelete(c.PG)
			c.State = &session{conn: c.PG, slOwnTxn: opts.Isolation != "read-committed", standby: node.(int) + 1}
			return nil
		},
	})
	if err != nil {
		return fmt.Errorf("opening %d connections to the standbys: %w", size, err)
	}
	r.reads = pool
	return nil
}

// dispatchRead runs a read-only transaction on a standby's connection. It
// reports false when the run stopped first.
func (r *runner) dispatchRead(t *terminal) bool {
	c, err := r.reads.Acquire(r.stop)
	if err != nil {
		return false
	}
	lost := r.execute(c, &t.req)
	r.reads.Release(c, lost)
	return true
}

// countRead counts a read-only transaction a standby completed in the
// measured window (the read/write split).
func (r *runner) countRead(ss *session) {
	if ss.standby > 0 && !time.Now().Before(r.measureFrom) {
		r.readCounts[ss.standby-1].Add(1)
	}
}

// closePools closes the primary's connections and the standbys' and
// returns their outages.
func (r *runner) closePools() []driver.Outage {
	outages := r.pool.Close()
	if r.reads != nil {
		outages = append(outages, r.reads.Close()...)
	}
	return outages
}

// readSplit is the run's transactions per node over the measured window:
// New-Order, Payment and Delivery (queued) on the primary, the reads
// each standby completed; nil without reads on standbys.
func readSplit(schemas []*schemaRun, whole *RunResult, lag []workload.NodeLag) *workload.ReadSplit {
	reads := whole.Options.Reads
	if !reads.On() {
		return nil
	}
	var primary int64
	for _, t := range whole.Txns {
		if t.Name == kinds[kindNewOrder].name || t.Name == kinds[kindPayment].name || t.Name == kinds[kindDelivery].name {
			primary += t.Count
		}
	}
	perNode := make([]int64, len(reads.Nodes))
	for _, p := range schemas {
		for i := range p.r.readCounts {
			perNode[i] += p.r.readCounts[i].Load()
		}
	}
	return workload.NewSplit(primary, reads.Nodes, perNode, lag)
}
