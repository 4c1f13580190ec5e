package tpcc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// deliveryWorker executes queued Deliveries (clause 2.7.2) for the warehouses
// w with (w − 1) mod workers = its index, on its own connection. Owning
// disjoint warehouses, two workers never race for the same oldest order.
type deliveryWorker struct {
	queue chan deliveryRequest
	// queueLocal records the terminals' Delivery response time: the time to
	// queue the request (clause 2.7.2.1). Terminals of this worker's
	// warehouses share it; Deliveries are 1 in 23 transactions.
	queueLocal *metrics.Local
}

// deliveryQueueDepth bounds each worker's queue: when the workers fall that
// far behind, terminals wait to queue, and it shows in the Delivery latency.
const deliveryQueueDepth = 256

// queueDelivery queues the terminal's Delivery and records its response time.
func (r *runner) queueDelivery(t *terminal, scheduled time.Time) bool {
	req := t.dreq
	req.queued = scheduled
	dw := r.delivery[(t.w-1)%len(r.delivery)]
	select {
	case dw.queue <- req:
	case <-r.stop.Done():
		return false
	}
	dw.queueLocal.Record(kindDelivery, time.Since(scheduled))
	return true
}

// deliveryLog writes the clause 2.7.2.2 result file: one line per executed
// Delivery with its queueing and completion times and skipped districts.
type deliveryLog struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func newDeliveryLog(w io.Writer) *deliveryLog {
	if w == nil {
		return nil
	}
	return &deliveryLog{w: bufio.NewWriter(w)}
}

func (l *deliveryLog) write(tag string, req deliveryRequest, out *deliveryOutcome) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%squeued=%s completed=%s w_id=%d carrier=%d skipped=%d o_id=",
		tag, req.queued.UTC().Format(time.RFC3339Nano), out.completed.UTC().Format(time.RFC3339Nano),
		req.w, req.carrier, out.skipped)
	for d, o := range out.orders {
		if d > 0 {
			l.w.WriteByte(',')
		}
		fmt.Fprint(l.w, o)
	}
	l.w.WriteByte('\n')
}

func (l *deliveryLog) flush() {
	if l != nil {
		l.mu.Lock()
		_ = l.w.Flush()
		l.mu.Unlock()
	}
}

// runDeliveryWorker executes its queue until the queue is closed (after the
// terminals stopped), then drains what is left while the grace period lasts.
func (r *runner) runDeliveryWorker(dw *deliveryWorker, notCompleted *atomic.Int64) {
	var c *driver.Conn
	defer func() {
		if c != nil {
			r.pool.Release(c, nil)
		}
	}()
	var out deliveryOutcome
	for req := range dw.queue {
		if r.exec.Err() != nil {
			notCompleted.Add(1)
			continue
		}
		if c == nil {
			var err error
			if c, err = r.pool.Acquire(r.exec); err != nil {
				c = nil
				notCompleted.Add(1)
				continue
			}
		}
		if lost := r.deliver(c, req, &out); lost != nil {
			r.pool.Release(c, lost)
			c = nil
		}
	}
}

// deliver runs one Delivery with retries; it returns the error when the
// connection was lost.
func (r *runner) deliver(c *driver.Conn, req deliveryRequest, out *deliveryOutcome) error {
	const kind = kindDeliveryDeferred
	for attempt := 0; ; attempt++ {
		ss := c.State.(*session)
		var err error
		if r.opts.Path == PathServer {
			err = ss.deliveryServer(r.exec, req, out)
		} else {
			err = ss.deliveryClient(r.exec, req, out)
		}
		if err != nil {
			r.rollbackIfNeeded(ss)
		}
		if err == nil {
			out.completed = time.Now()
			c.Local.Record(kind, out.completed.Sub(req.queued))
			c.Local.Add(kind, cntSkipped, int64(out.skipped))
			if out.skipped > 0 {
				c.Local.Add(kind, cntSkippedDeliveries, 1)
			}
			r.dlog.write(r.dlogTag, req, out)
			return nil
		}
		if driver.Retryable(err) && attempt < r.opts.MaxRetries {
			c.Local.Add(kind, cntRetries, 1)
			if driver.Sleep(r.exec, driver.RetryBackoff(attempt)) {
				continue
			}
		}
		if errors.Is(err, context.Canceled) && r.exec.Err() != nil {
			return err
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
