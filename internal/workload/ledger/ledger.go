// Package ledger is pgoltp's own small write workload, made for the
// durability audit (internal/crashaudit) and for quick experiments.
package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Ledger is pgoltp's own small write workload, made for the durability audit
// and for quick experiments: each transaction updates one row of
// ledger_account (so fillfactor and HOT matter) and inserts the next id into
// ledger_entry. A client appends the id to its log of acknowledged commits only
// after COMMIT has returned success, so the log is exactly what the server
// promised to keep.
type Ledger struct {
	Clients  int // concurrent connections (default 4)
	Accounts int // rows in ledger_account (default 10000)
}

// ledgerTables are dropped and recreated by Prepare; names are fixed, never from input.
const ledgerSchema = `
DROP TABLE IF EXISTS ledger_entry, ledger_account;
CREATE TABLE ledger_account (id int PRIMARY KEY, balance bigint NOT NULL, filler char(84) NOT NULL DEFAULT '') WITH (fillfactor = %d);
CREATE TABLE ledger_entry (id bigint PRIMARY KEY, account int NOT NULL, client int NOT NULL, at timestamptz NOT NULL DEFAULT now());
INSERT INTO ledger_account (id, balance) SELECT g, 0 FROM generate_series(1, %d) g;
`

func (l Ledger) clients() int {
	if l.Clients <= 0 {
		return 4
	}
	return l.Clients
}

func (l Ledger) accounts() int {
	if l.Accounts <= 0 {
		return 10000
	}
	return l.Accounts
}

// Kind implements workload.Workload.
func (l Ledger) Kind() string { return "ledger" }

// Name implements workload.Workload.
func (l Ledger) Name() string {
	return fmt.Sprintf("ledger, %d accounts, %d clients", l.accounts(), l.clients())
}

// LayoutOptions implements workload.LayoutOptions: ledger_account's fillfactor.
func (l Ledger) LayoutOptions() []string { return []string{"fillfactor"} }

// Prepare implements workload.Workload.
func (l Ledger) Prepare(ctx context.Context, dsn string, layout workload.Layout) error {
	ff := 100
	for k, v := range layout {
		if k != "fillfactor" {
			return fmt.Errorf("the ledger workload has no layout option %q (it has fillfactor)", k)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 || n > 100 {
			return fmt.Errorf("fillfactor %q: must be a whole number from 10 to 100", v)
		}
		ff = n
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// Both numbers are ints formatted by us, never user text.
	_, err = conn.Exec(ctx, fmt.Sprintf(ledgerSchema, ff, l.accounts()))
	if err == nil {
		// A fresh visibility map and statistics, as after a real load; VACUUM
		// cannot share the schema's implicit transaction.
		_, err = conn.Exec(ctx, "VACUUM ANALYZE ledger_account")
	}
	if err != nil {
		return fmt.Errorf("preparing the ledger tables: %w", err)
	}
	return nil
}

// Run implements workload.Workload.
func (l Ledger) Run(ctx context.Context, dsn string, d time.Duration) (*workload.Result, error) {
	m, _, err := l.RunLogged(ctx, dsn, d)
	res := &workload.Result{Measurement: m, Interrupted: ctx.Err() != nil, End: time.Now(),
		Params: []workload.Param{{Name: "workload", Value: "ledger"},
			{Name: "accounts", Value: strconv.Itoa(l.accounts())}, {Name: "clients", Value: strconv.Itoa(l.clients())}},
		Headline: []workload.Figure{{Name: "TPS", Value: m.TPS(), Unit: "txn/s"},
			{Name: "latency p99", Value: float64(m.P99) / float64(time.Millisecond), Unit: "ms"},
			{Name: "errors", Value: float64(m.Errors), Unit: "txn"}}}
	return res, err
}

// Check implements workload.Workload: one ledger_entry row per committed
// transaction, and the balances add up to the entries.
func (l Ledger) Check(ctx context.Context, dsn string) (*workload.Check, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	var balances, entries int64
	if err := conn.QueryRow(ctx, "SELECT (SELECT coalesce(sum(balance), 0) FROM ledger_account), (SELECT count(*) FROM ledger_entry)").Scan(&balances, &entries); err != nil {
		return nil, fmt.Errorf("the ledger tables are missing (prepare first): %w", err)
	}
	v := workload.Verdict{Status: "PASS", What: fmt.Sprintf("Σ balance %d = entries %d", balances, entries)}
	c := &workload.Check{Passed: balances == entries}
	if !c.Passed {
		v.Status = "FAIL"
		c.Failed = []string{"balance = entries"}
	}
	c.Note = workload.Summarize("consistency check", []workload.Verdict{v})
	return c, nil
}

// Acked is a client's log of ids whose COMMIT returned success.
type Acked []int64

// RunLogged runs like Run and also returns every acknowledged id. A client
// stops at its first error (a crashed server ends the run); a commit whose
// outcome is unknown (the connection broke while waiting) is not in the log.
func (l Ledger) RunLogged(ctx context.Context, dsn string, d time.Duration) (workload.Measurement, Acked, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return workload.Measurement{}, nil, err
	}
	var next atomic.Int64
	var maxID int64
	err = conn.QueryRow(ctx, "SELECT coalesce(max(id), 0) FROM ledger_entry").Scan(&maxID)
	conn.Close(context.Background())
	if err != nil {
		return workload.Measurement{}, nil, fmt.Errorf("the ledger tables are missing (prepare first): %w", err)
	}
	next.Store(maxID)

	n := l.clients()
	conns := make([]*pgx.Conn, n)
	for i := range conns {
		if conns[i], err = pgx.Connect(ctx, dsn); err != nil {
			for _, c := range conns[:i] {
				c.Close(context.Background())
			}
			return workload.Measurement{}, nil, err
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()

	var committed, failed atomic.Int64
	logs := make([]Acked, n)
	hists := make([]*hdrhistogram.Histogram, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	series := perSecond(runCtx, start, &committed)
	for i := 0; i < n; i++ {
		hists[i] = metrics.NewHistogram()
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer conns[i].Close(context.Background())
			rng := rand.New(rand.NewPCG(uint64(start.UnixNano()), uint64(i)))
			accounts := int32(l.accounts())
			for runCtx.Err() == nil {
				id := next.Add(1)
				acct := rng.Int32N(accounts) + 1
				t0 := time.Now()
				b := &pgx.Batch{}
				b.Queue("BEGIN")
				b.Queue("UPDATE ledger_account SET balance = balance + 1 WHERE id = $1", acct)
				b.Queue("INSERT INTO ledger_entry (id, account, client) VALUES ($1, $2, $3)", id, acct, i)
				b.Queue("COMMIT")
				err := conns[i].SendBatch(runCtx, b).Close()
				if err != nil {
					if runCtx.Err() != nil {
						return // the run ended mid-transaction: its outcome is not counted
					}
					failed.Add(1)
					errs[i] = err
					return
				}
				// COMMIT returned success: only now is the id acknowledged.
				logs[i] = append(logs[i], id)
				committed.Add(1)
				_ = hists[i].RecordValue(max(1, time.Since(t0).Microseconds()))
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	cancel()
	m := workload.Measurement{Transactions: committed.Load(), Errors: failed.Load(), Elapsed: elapsed, PerSecond: <-series}
	all := metrics.NewHistogram()
	var acked Acked
	for i := range hists {
		all.Merge(hists[i])
		acked = append(acked, logs[i]...)
	}
	m.P50, m.P95, m.P99 = metrics.Percentile(all, 50), metrics.Percentile(all, 95), metrics.Percentile(all, 99)
	return m, acked, errors.Join(errs...)
}

// perSecond samples a running counter once a second until ctx ends and then
// sends the per-second increments (whole seconds only).
func perSecond(ctx context.Context, start time.Time, counter *atomic.Int64) <-chan []float64 {
	out := make(chan []float64, 1)
	go func() {
		var points []float64
		last := int64(0)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				out <- points
				return
			case <-tick.C:
				now := counter.Load()
				points = append(points, float64(now-last))
				last = now
			}
		}
	}()
	return out
}
