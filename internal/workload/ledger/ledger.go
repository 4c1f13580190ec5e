// Package ledger is pgoltp's own small write workload, made for the
// durability audit (internal/crashaudit) and for quick experiments.
package ledger

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

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
func (l Ledger) Run(ctx context.Context, dsn string, opts workload.RunOptions) (*workload.Result, error) {
	res, _, err := l.run(ctx, dsn, opts.Duration, opts.OnInterval)
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
