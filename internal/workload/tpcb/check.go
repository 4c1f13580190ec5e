package tpcb

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// Sums are the totals the check compares: every committed transaction of
// the full script adds the same delta to one account, one teller, one
// branch and one new history row.
type Sums struct {
	Accounts     int64 `json:"sum_abalance"`
	Tellers      int64 `json:"sum_tbalance"`
	Branches     int64 `json:"sum_bbalance"`
	HistoryDelta int64 `json:"sum_history_delta"`
	HistoryRows  int64 `json:"history_rows"`
}

// sumsSQL reads all five totals in one statement (one snapshot).
const sumsSQL = `select
  (select coalesce(sum(abalance), 0) from pgbench_accounts)::bigint,
  (select coalesce(sum(tbalance), 0) from pgbench_tellers)::bigint,
  (select coalesce(sum(bbalance), 0) from pgbench_branches)::bigint,
  (select coalesce(sum(delta), 0) from pgbench_history)::bigint,
  (select count(*) from pgbench_history)`

func readSums(ctx context.Context, conn *pgx.Conn) (Sums, error) {
	var s Sums
	err := conn.QueryRow(ctx, sumsSQL).Scan(&s.Accounts, &s.Tellers, &s.Branches, &s.HistoryDelta, &s.HistoryRows)
	if err != nil {
		if notLoaded(err) == ErrNotLoaded {
			return s, ErrNotLoaded
		}
		return s, fmt.Errorf("reading balances: %w", err)
	}
	return s, nil
}

func (s Sums) minus(o Sums) Sums {
	return Sums{s.Accounts - o.Accounts, s.Tellers - o.Tellers, s.Branches - o.Branches,
		s.HistoryDelta - o.HistoryDelta, s.HistoryRows - o.HistoryRows}
}

// CheckOptions say what the database has been through.
type CheckOptions struct {
	// SkipSomeUpdates: runs with the simple-update script (-N) happened,
	// which move account balances and history but not tellers or branches,
	// so Σ tbalance = Σ history delta is not expected.
	SkipSomeUpdates bool
	// ExpectHistory, if at least 0, is the number of history rows there
	// must be (the committed transactions since the load).
	ExpectHistory int64
}

// Condition is one checked equality.
type Condition struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// CheckResult is the outcome of a check: the totals and each condition.
type CheckResult struct {
	Sums       Sums        `json:"sums"`
	Delta      *Sums       `json:"delta,omitempty"` // for a run: the change during the run
	Conditions []Condition `json:"conditions"`
	OK         bool        `json:"ok"`
}

func (r *CheckResult) add(name string, ok bool, format string, args ...any) {
	r.Conditions = append(r.Conditions, Condition{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	if !ok {
		r.OK = false
	}
}

// Failures returns the conditions that do not hold.
func (r *CheckResult) Failures() []Condition {
	var f []Condition
	for _, c := range r.Conditions {
		if !c.OK {
			f = append(f, c)
		}
	}
	return f
}

// Check verifies a database as a whole: Σ abalance = Σ history delta and
// Σ tbalance = Σ bbalance (true after any mix of the scripts), Σ tbalance =
// Σ history delta unless SkipSomeUpdates, and the history row count if
// ExpectHistory ≥ 0. It holds from a load (pgoltp or pgbench -i) on, as long
// as pgbench_history was never truncated (pgbench's run does truncate it
// unless given -n).
func Check(ctx context.Context, dsn string, opts CheckOptions) (*CheckResult, error) {
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := readScale(ctx, conn); err != nil {
		return nil, err
	}
	s, err := readSums(ctx, conn)
	if err != nil {
		return nil, err
	}
	r := &CheckResult{Sums: s, OK: true}
	r.add("accounts = history", s.Accounts == s.HistoryDelta, "Σ abalance %d, Σ history delta %d", s.Accounts, s.HistoryDelta)
	r.add("tellers = branches", s.Tellers == s.Branches, "Σ tbalance %d, Σ bbalance %d", s.Tellers, s.Branches)
	if !opts.SkipSomeUpdates {
		r.add("tellers = history", s.Tellers == s.HistoryDelta, "Σ tbalance %d, Σ history delta %d", s.Tellers, s.HistoryDelta)
	}
	if opts.ExpectHistory >= 0 {
		r.add("history rows = committed", s.HistoryRows == opts.ExpectHistory, "%d history rows, %d expected", s.HistoryRows, opts.ExpectHistory)
	}
	return r, nil
}

// checkRun verifies what one run changed: with the full script every total
// moved by the history delta; with -N only the accounts did; with -S
// nothing did; and exactly one history row per committed transaction.
func checkRun(before, after Sums, def *scriptDef, committed, inDoubt int64) *CheckResult {
	d := after.minus(before)
	r := &CheckResult{Sums: after, Delta: &d, OK: true}
	if !def.writes {
		r.add("nothing changed", d == Sums{}, "Δ Σ abalance %d, Δ Σ tbalance %d, Δ Σ bbalance %d, %d new history rows",
			d.Accounts, d.Tellers, d.Branches, d.HistoryRows)
		return r
	}
	r.add("accounts = history", d.Accounts == d.HistoryDelta, "Δ Σ abalance %d, Δ Σ history delta %d", d.Accounts, d.HistoryDelta)
	if def.tellers {
		r.add("tellers = history", d.Tellers == d.HistoryDelta, "Δ Σ tbalance %d, Δ Σ history delta %d", d.Tellers, d.HistoryDelta)
		r.add("branches = history", d.Branches == d.HistoryDelta, "Δ Σ bbalance %d, Δ Σ history delta %d", d.Branches, d.HistoryDelta)
	} else {
		r.add("tellers, branches unchanged", d.Tellers == 0 && d.Branches == 0, "Δ Σ tbalance %d, Δ Σ bbalance %d", d.Tellers, d.Branches)
	}
	if inDoubt == 0 {
		r.add("history rows = committed", d.HistoryRows == committed, "%d new history rows, %d transactions committed", d.HistoryRows, committed)
	} else {
		// A transaction whose connection was lost may have committed
		// without its client hearing it: each adds zero or one row.
		r.add("history rows = committed (+ in doubt)", d.HistoryRows >= committed && d.HistoryRows <= committed+inDoubt,
			"%d new history rows, %d transactions committed, %d in doubt (connection lost in flight)", d.HistoryRows, committed, inDoubt)
	}
	return r
}
