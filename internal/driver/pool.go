package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// Conn is one database connection of a Pool with what belongs to it: its own
// latency recorder (whoever holds the Conn records into it, so recording
// never contends) and the workload's per-connection state.
type Conn struct {
	ID    int
	PG    *pgx.Conn // nil while the connection is lost
	Local *metrics.Local
	State any // the workload's per-connection state, set by the Setup hook

	lostAt  time.Time
	lostErr string
}

// Outage is a lost connection and when it came back: the gap in the results.
type Outage struct {
	Conn     int       `json:"conn"`
	Lost     time.Time `json:"lost"`
	Restored time.Time `json:"restored"` // zero: not restored before the run ended
	Attempts int       `json:"attempts"`
	Error    string    `json:"error"`
}

// Duration is the length of the gap (until now if not restored).
func (o Outage) Duration() time.Duration {
	if o.Restored.IsZero() {
		return time.Since(o.Lost)
	}
	return o.Restored.Sub(o.Lost)
}

// PoolOptions configure a Pool.
type PoolOptions struct {
	Size    int
	Connect func(ctx context.Context) (*pgx.Conn, error)
	// Setup runs on every new connection (prepare statements, set state).
	Setup    func(ctx context.Context, c *Conn) error
	Recorder *metrics.Recorder
}

// Pool is a fixed set of connections that terminals borrow for one
// transaction at a time, so many thinking terminals share few connections. A
// connection marked lost is re-established by the next borrower, which waits
// (with backoff) until the server is back or the run ends; the gap is recorded
// as an Outage.
type Pool struct {
	opts PoolOptions
	free chan *Conn
	all  []*Conn

	mu      sync.Mutex
	outages []Outage
}

// NewPool opens all connections; it fails if any of them cannot be opened.
func NewPool(ctx context.Context, opts PoolOptions) (*Pool, error) {
	if opts.Size < 1 {
		return nil, fmt.Errorf("pool size %d: need at least 1", opts.Size)
	}
	p := &Pool{opts: opts, free: make(chan *Conn, opts.Size)}
	for i := 0; i < opts.Size; i++ {
		c := &Conn{ID: i, Local: opts.Recorder.NewLocal()}
		if err := p.open(ctx, c); err != nil {
			p.Close()
			return nil, err
		}
		p.all = append(p.all, c)
		p.free <- c
	}
	return p, nil
}

func (p *Pool) open(ctx context.Context, c *Conn) error {
	pg, err := p.opts.Connect(ctx)
	if err != nil {
		return err
	}
	c.PG = pg
	if p.opts.Setup != nil {
		if err := p.opts.Setup(ctx, c); err != nil {
			_ = pg.Close(context.Background())
			c.PG = nil
			return err
		}
	}
	return nil
}

// Acquire borrows a connection, re-establishing it first if it was lost. It
// returns an error only when ctx ends.
func (p *Pool) Acquire(ctx context.Context) (*Conn, error) {
	var c *Conn
	select {
	case c = <-p.free:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.PG != nil {
		return c, nil
	}
	if err := p.reconnect(ctx, c); err != nil {
		p.free <- c
		return nil, err
	}
	return c, nil
}

func (p *Pool) reconnect(ctx context.Context, c *Conn) error {
	backoff := 50 * time.Millisecond
	attempts := 0
	for {
		attempts++
		err := p.open(ctx, c)
		if err == nil {
			p.mu.Lock()
			p.outages = append(p.outages, Outage{Conn: c.ID, Lost: c.lostAt, Restored: time.Now(), Attempts: attempts, Error: c.lostErr})
			p.mu.Unlock()
			return nil
		}
		if !Sleep(ctx, backoff) {
			p.mu.Lock()
			p.outages = append(p.outages, Outage{Conn: c.ID, Lost: c.lostAt, Attempts: attempts, Error: c.lostErr})
			p.mu.Unlock()
			c.lostAt = time.Time{} // recorded; do not record it twice
			return ctx.Err()
		}
		if backoff < 2*time.Second {
			backoff *= 2
		}
	}
}

// Release returns a borrowed connection. If err says the connection is lost
// (or the connection closed itself), it is closed and marked for reconnection.
func (p *Pool) Release(c *Conn, err error) {
	if c.PG != nil && (c.PG.IsClosed() || ConnectionLost(err)) {
		p.markLost(c, err)
	}
	p.free <- c
}

func (p *Pool) markLost(c *Conn, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = c.PG.Close(ctx)
	cancel()
	c.PG = nil
	c.lostAt = time.Now()
	if err == nil {
		err = errors.New("connection closed")
	}
	c.lostErr = err.Error()
}

// Outages returns the connection losses so far, with their gaps, plus the
// ones still open.
func (p *Pool) Outages() []Outage {
	p.mu.Lock()
	out := append([]Outage(nil), p.outages...)
	p.mu.Unlock()
	return out
}

// Close closes every connection; borrowed ones must have been released.
func (p *Pool) Close() []Outage {
	var open []Outage
	for _, c := range p.all {
		if c.PG != nil {
			_ = c.PG.Close(context.Background())
			c.PG = nil
		} else if !c.lostAt.IsZero() {
			open = append(open, Outage{Conn: c.ID, Lost: c.lostAt, Error: c.lostErr})
		}
	}
	p.mu.Lock()
	p.outages = append(p.outages, open...)
	p.mu.Unlock()
	return p.Outages()
}
