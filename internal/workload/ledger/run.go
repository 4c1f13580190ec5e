package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/measure"
	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// The ledger's one transaction type and its counter of failed ones.
const (
	kindTxn      = 0
	cntErrors    = 0
	errorCounter = "errors"
)

// Acked is a client's log of ids whose COMMIT returned success.
type Acked []int64

// RunLogged runs like Run and also returns every acknowledged id. A client
// stops at its first error (a crashed server ends the run); a commit whose
// outcome is unknown (the connection broke while waiting) is not in the log.
func (l Ledger) RunLogged(ctx context.Context, dsn string, d time.Duration) (*workload.Result, Acked, error) {
	return l.run(ctx, dsn, d, nil)
}

// run drives the clients for d (until ctx ends when d is 0) on a
// measure.Meter, handing each interval to onInterval (nil: none).
func (l Ledger) run(ctx context.Context, dsn string, d time.Duration, onInterval workload.IntervalFunc) (*workload.Result, Acked, error) {
	conns, inject, err := l.connect(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	rec := metrics.NewRecorder([]string{"transaction"}, errorCounter)
	logs := make([]Acked, len(conns))
	clients := make([]client, len(conns))
	start := time.Now()
	rec.Interval() // the clock starts now
	for i, conn := range conns {
		clients[i] = client{id: i, conn: conn, local: rec.NewLocal(), accounts: int32(l.accounts()), inject: inject,
			rng: rand.New(rand.NewPCG(uint64(start.UnixNano()), uint64(i)))}
	}
	var opts measure.Options
	if onInterval != nil {
		opts.OnInterval = func(iv measure.Interval) { onInterval(iv.Snap, errorCounter) }
	}
	meter := measure.New(rec, start, opts)
	errs, end, _ := meter.Drive(ctx, d, len(clients), func(ctx context.Context, i int) (err error) {
		logs[i], err = clients[i].run(ctx)
		return err
	})
	var acked Acked
	for _, log := range logs {
		acked = append(acked, log...)
	}
	return l.result(meter, end, ctx.Err() != nil), acked, errors.Join(errs...)
}

// connect opens one connection per client, once it has seen the tables
// (an identity on ledger_entry's id: prepared by this pgoltp), and says
// whether the server has pgoltp.inject_rows set (injected).
func (l Ledger) connect(ctx context.Context, dsn string) (conns []*pgx.Conn, inject bool, err error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, false, err
	}
	var identity bool
	err = conn.QueryRow(ctx, `SELECT attidentity <> '', current_setting($1, true) IS NOT NULL FROM pg_attribute
		WHERE attrelid = 'ledger_entry'::regclass AND attname = 'id'`, settings.InjectRows).Scan(&identity, &inject)
	conn.Close(context.Background())
	if err != nil || !identity {
		return nil, false, fmt.Errorf("the ledger tables are missing or from an older pgoltp (prepare first): %v", err)
	}
	conns = make([]*pgx.Conn, l.clients())
	for i := range conns {
		if conns[i], err = pgx.Connect(ctx, dsn); err != nil {
			for _, c := range conns[:i] {
				c.Close(context.Background())
			}
			return nil, false, err
		}
	}
	return conns, inject, nil
}

// injectedWork is the known extra cost of a transaction while the server
// has pgoltp.inject_rows set (settings.InjectRows): that many rows counted
// on the server. The value is read by every transaction, so a reload
// switches it within a run (a switchback step); a run started with the
// setting absent never sends the statement, so ordinary runs pay nothing.
const injectedWork = `SELECT count(*) FROM generate_series(1, coalesce(nullif(current_setting($1, true), ''), '0')::int)`

// client is one connection's loop.
type client struct {
	id       int
	conn     *pgx.Conn
	local    *metrics.Local
	rng      *rand.Rand
	accounts int32
	inject   bool // send injectedWork in every transaction
}

// run commits transactions until ctx ends or one fails, and returns the ids
// acknowledged and the error that stopped it.
func (c client) run(ctx context.Context) (Acked, error) {
	defer c.conn.Close(context.Background())
	var log Acked
	for ctx.Err() == nil {
		acct := c.rng.Int32N(c.accounts) + 1
		t0 := time.Now()
		id, err := c.commit(ctx, acct)
		if err != nil {
			if ctx.Err() != nil {
				return log, nil // the run ended mid-transaction: its outcome is not counted
			}
			c.local.Add(kindTxn, cntErrors, 1)
			return log, err
		}
		// COMMIT returned success: only now is the id acknowledged.
		log = append(log, id)
		c.local.Record(kindTxn, time.Since(t0))
	}
	return log, nil
}

// commit sends one transaction in one round trip and returns its entry's
// id once COMMIT has returned success.
func (c client) commit(ctx context.Context, acct int32) (int64, error) {
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue("UPDATE ledger_account SET balance = balance + 1 WHERE id = $1", acct)
	b.Queue("INSERT INTO ledger_entry (account, client) VALUES ($1, $2) RETURNING id", acct, c.id)
	if c.inject {
		b.Queue(injectedWork, settings.InjectRows)
	}
	b.Queue("COMMIT")
	res := c.conn.SendBatch(ctx, b)
	var id int64
	_, err := res.Exec()
	if err == nil {
		_, err = res.Exec()
	}
	if err == nil {
		err = res.QueryRow().Scan(&id)
	}
	if err == nil && c.inject {
		_, err = res.Exec()
	}
	if err == nil {
		_, err = res.Exec()
	}
	if cerr := res.Close(); err == nil {
		err = cerr
	}
	return id, err
}

// result is the run in the terms every workload shares.
func (l Ledger) result(m *measure.Meter, end time.Time, interrupted bool) *workload.Result {
	t := m.Total()
	meas := workload.Measurement{Transactions: t.Count(kindTxn), Errors: t.Counter(kindTxn, cntErrors),
		Elapsed: end.Sub(m.Start()), PerSecond: workload.PerSecondOf(m.Series()),
		P50: t.Percentile(kindTxn, 50), P95: t.Percentile(kindTxn, 95), P99: t.Percentile(kindTxn, 99)}
	return &workload.Result{Measurement: meas, Latency: workload.LatencyOf(t), Series: m.Series(), ErrorCounter: errorCounter,
		Rate: workload.Rate{Figure: "TPS", Type: "transaction", Unit: "txn/s", Per: time.Second},
		End:  end, Interrupted: interrupted,
		Params: []workload.Param{{Name: "workload", Value: "ledger"},
			{Name: "accounts", Value: strconv.Itoa(l.accounts())}, {Name: "clients", Value: strconv.Itoa(l.clients())}},
		Headline: []workload.Figure{{Name: "TPS", Value: meas.TPS(), Unit: "txn/s"},
			{Name: "latency p99", Value: float64(meas.P99) / float64(time.Millisecond), Unit: "ms"},
			{Name: "errors", Value: float64(meas.Errors), Unit: "txn"}}}
}
