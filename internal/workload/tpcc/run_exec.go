package tpcc

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/driver"
)

// session is the per-connection state: the connection and the buffers its
// transactions reuse. A new session comes with every (re)connection.
type session struct {
	conn     *pgx.Conn
	no       newOrderScratch
	out      txnOutputs // the last transaction's output, per kind
	slBatch  pgx.Batch
	slOwnTxn bool // Stock-Level in its own READ COMMITTED transaction
	standby  int  // the read node's number from 1 on a standby's connection (run_reads.go); 0 on the primary
}

// connWorker owns one connection and executes the terminals' transactions on
// it, one at a time, recording their latencies into the connection's own
// recorder. A lost connection is re-established before the next transaction.
func (r *runner) connWorker() {
	var c *driver.Conn
	defer func() {
		if c != nil {
			r.pool.Release(c, nil)
		}
	}()
	for {
		var req *request
		select {
		case req = <-r.work:
		case <-r.stop.Done():
			return
		}
		if c == nil {
			var err error
			if c, err = r.pool.Acquire(r.exec); err != nil {
				c = nil
				req.reply <- struct{}{} // not executed: the run is ending
				continue
			}
		}
		lost := r.execute(c, req)
		req.reply <- struct{}{}
		if lost != nil {
			r.pool.Release(c, lost)
			c = nil
		}
	}
}

// execute runs one transaction with retries and records it. It returns the
// error when the connection was lost.
func (r *runner) execute(c *driver.Conn, req *request) (lost error) {
	t, kind := req.t, req.kind
	for attempt := 0; ; attempt++ {
		ss := c.State.(*session)
		rolledBack, err := r.runOnce(ss, t, kind)
		if err != nil {
			r.rollbackIfNeeded(ss)
		}
		if err == nil {
			c.Local.Record(kind, time.Since(req.scheduled))
			r.countInputs(c, t, kind, rolledBack)
			r.countRead(ss)
			auditOutput(c.Local, ss, kind)
			return nil
		}
		if driver.Retryable(err) && attempt < r.opts.MaxRetries {
			c.Local.Add(kind, cntRetries, 1)
			if driver.Sleep(r.exec, driver.RetryBackoff(attempt)) {
				continue
			}
		}
		if errors.Is(err, context.Canceled) && r.exec.Err() != nil {
			return err // the run's grace period ended; not the database's fault
		}
		c.Local.Add(kind, cntErrors, 1)
		r.errors.add(kind, err)
		if ss.conn.IsClosed() || driver.ConnectionLost(err) {
			c.Local.Add(kind, cntLost, 1)
			return err
		}
		return nil
	}
}

// runOnce executes kind once on the session, by the configured path.
func (r *runner) runOnce(ss *session, t *terminal, kind int) (rolledBack bool, err error) {
	ctx := r.exec
	server := r.opts.Path == PathServer
	switch kind {
	case kindNewOrder:
		if server {
			return ss.newOrderServer(ctx, &t.no)
		}
		return ss.newOrderClient(ctx, &t.no)
	case kindPayment:
		if server {
			return false, ss.paymentServer(ctx, &t.pay)
		}
		return false, ss.paymentClient(ctx, &t.pay)
	case kindOrderStatus:
		if server {
			return false, ss.orderStatusServer(ctx, &t.os)
		}
		return false, ss.orderStatusClient(ctx, &t.os)
	case kindStockLevel:
		if server {
			_, err = ss.stockLevelServer(ctx, &t.sl)
		} else {
			_, err = ss.stockLevelClient(ctx, &t.sl)
		}
		return false, err
	}
	return false, errors.New("unknown transaction kind")
}

// countInputs records what the input audits (audit.go) need.
func (r *runner) countInputs(c *driver.Conn, t *terminal, kind int, rolledBack bool) {
	l := c.Local
	switch kind {
	case kindNewOrder:
		l.Add(kind, cntLines, int64(len(t.no.lines)))
		if n := len(t.no.lines); n >= minOLCnt && n <= maxOLCnt {
			l.Add(kind, cntOLCnt+n-minOLCnt, 1)
		}
		if t.no.remote > 0 {
			l.Add(kind, cntRemoteLines, int64(t.no.remote))
		}
		if rolledBack {
			l.Add(kind, cntRollbacks, 1)
		}
	case kindPayment:
		if t.pay.remote {
			l.Add(kind, cntRemote, 1)
		}
		if t.pay.byName {
			l.Add(kind, cntByName, 1)
		}
	case kindOrderStatus:
		if t.os.byName {
			l.Add(kind, cntByName, 1)
		}
	}
}

// rollbackIfNeeded ends a transaction an error left open or aborted, so the
// connection can be used again.
func (r *runner) rollbackIfNeeded(ss *session) {
	if ss.conn.IsClosed() || ss.conn.PgConn().TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.exec), 5*time.Second)
	defer cancel()
	_, _ = ss.conn.Exec(ctx, "ROLLBACK")
}
