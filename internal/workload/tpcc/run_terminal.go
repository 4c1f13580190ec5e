package tpcc

import (
	"time"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/measure"
)

// terminal is one emulated terminal (clause 4.2.2): a goroutine with a fixed
// home warehouse and Stock-Level district, its own random source and deck. It
// keys in inputs, waits its keying time, has the transaction executed, then
// thinks. With more terminals than connections it holds no connection: it
// hands each transaction to a connection worker and waits, so thousands of
// thinking terminals need only as many connections as are busy, and its
// goroutine stack stays small. With no more terminals than connections it
// owns one and executes on it itself, saving the hand-off.
type terminal struct {
	id         int
	w          int // home warehouse, 1..warehouses
	slDistrict int // Stock-Level district (clause 2.8.1.1)
	warehouses int
	rand       *Rand
	c          Constants // C_RUN
	deck       *driver.Deck
	sched      measure.Schedule
	done       int
	conn       *driver.Conn // own connection when terminals ≤ connections

	req  request
	no   newOrderInput
	pay  paymentInput
	os   orderStatusInput
	sl   stockLevelInput
	dreq deliveryRequest
}

// dispatch executes the terminal's request. With no more terminals than
// connections each terminal owns one and runs its transactions itself (no
// hand-off between goroutines); otherwise it hands them to the connection
// workers and waits. It reports false when the run stopped first.
func (r *runner) dispatch(t *terminal) bool {
	if r.reads != nil && readKind(t.req.kind) {
		return r.dispatchRead(t)
	}
	if r.inline {
		if t.conn == nil {
			c, err := r.pool.Acquire(r.stop)
			if err != nil {
				return false
			}
			t.conn = c
		}
		if lost := r.execute(t.conn, &t.req); lost != nil {
			r.pool.Release(t.conn, lost)
			t.conn = nil
		}
		return true
	}
	select {
	case r.work <- &t.req:
	case <-r.stop.Done():
		return false
	}
	<-t.req.reply
	return true
}

// request is what a terminal hands to a connection worker.
type request struct {
	t         *terminal
	kind      int
	scheduled time.Time     // latency is measured from here
	reply     chan struct{} // the worker signals completion
}

// otherWarehouse returns a uniformly random warehouse other than home
// (clauses 2.4.1.5, 2.5.1.2); only called when there are at least two.
func (t *terminal) otherWarehouse() int {
	w := t.rand.IntRange(1, t.warehouses-1)
	if w >= t.w {
		w++
	}
	return w
}

// keyIn draws the inputs of kind (before the keying time, as a user would).
func (t *terminal) keyIn(kind int) {
	switch kind {
	case kindNewOrder:
		t.genNewOrder(&t.no)
	case kindPayment:
		t.genPayment(&t.pay)
	case kindOrderStatus:
		t.genOrderStatus(&t.os)
	case kindDelivery:
		t.dreq = deliveryRequest{w: int32(t.w), carrier: int32(t.rand.IntRange(1, 10))}
	case kindStockLevel:
		t.genStockLevel(&t.sl)
	}
}

// terminalLoop runs the terminal until the run stops, it has done its share
// or the run's --stop-at-txns budget is spent.
func (r *runner) terminalLoop(t *terminal) {
	defer func() {
		if t.conn != nil {
			r.pool.Release(t.conn, nil)
		}
	}()
	spec := r.opts.Mode == ModeSpec
	scale := r.opts.KeyingScale
	for r.stop.Err() == nil {
		if r.opts.TxnsPerTerminal > 0 && t.done >= r.opts.TxnsPerTerminal {
			return
		}
		if !r.budget.Take() {
			return
		}
		kind := t.deck.Next()
		t.keyIn(kind)
		if spec && !driver.Sleep(r.stop, time.Duration(float64(kinds[kind].keying)*scale)) {
			return
		}
		scheduled := time.Now()
		if t.sched.Limited() {
			slot := t.sched.Next()
			if !driver.SleepUntil(r.stop, slot) {
				return
			}
			// In no-wait mode a late slot stays the start: the wait shows as
			// latency. With keying times the terminal was busy keying, so the
			// transaction starts when both are done.
			if !spec || slot.After(scheduled) {
				scheduled = slot
			}
		}
		if kind == kindDelivery {
			if !r.queueDelivery(t, scheduled) {
				return
			}
		} else {
			t.req.kind, t.req.scheduled = kind, scheduled
			if !r.dispatch(t) {
				return
			}
		}
		t.done++
		if spec {
			think := measure.ThinkTime(time.Duration(float64(kinds[kind].think)*scale), float64(t.rand.IntRange(1, 1<<30))/(1<<30))
			if !driver.Sleep(r.stop, think) {
				return
			}
		}
	}
}
