package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// OtherTools are the figures HammerDB and BenchmarkSQL would print for the
// same run, so that their users compare like with like (README "TPC-C
// runs"). HammerDB reads two server counters when its ramp-up ends and when
// its test ends: the sum of d_next_o_id over all districts (its NOPM) and
// the sum of xact_commit + xact_rollback over pg_stat_database (its TPM, for
// PostgreSQL), and divides each difference by the test's minutes.
// BenchmarkSQL 5.0 prints "Measured tpmC (NewOrders)" and "Measured
// tpmTOTAL": the New-Orders and all transactions its terminals completed
// from the session's start, without a ramp-up, per minute of the session.
type OtherTools struct {
	HammerDBNOPM float64 `json:"hammerdb_nopm"`
	HammerDBTPM  float64 `json:"hammerdb_tpm"`
	// HammerDBStart and HammerDBEnd are the counters read at the start and
	// the end of the measured interval, over the whole database and server.
	HammerDBStart ServerCounters `json:"hammerdb_start"`
	HammerDBEnd   ServerCounters `json:"hammerdb_end"`
	// HammerDBNote says why HammerDB's figures are missing ("" when not).
	HammerDBNote string `json:"hammerdb_note,omitempty"`

	BenchmarkSQLTpmC     float64 `json:"benchmarksql_tpmc"`
	BenchmarkSQLTpmTotal float64 `json:"benchmarksql_tpm_total"`
}

// ServerCounters are the two counters HammerDB reads.
type ServerCounters struct {
	NextOrderIDs int64 `json:"sum_d_next_o_id"`
	Transactions int64 `json:"sum_xact_commit_rollback"`
}

// readServerCounters reads them on conn (the schema's search_path). The
// server's statistics lag by up to about a second, as they do for HammerDB.
func readServerCounters(ctx context.Context, conn *pgx.Conn) (ServerCounters, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var c ServerCounters
	err := conn.QueryRow(ctx, `SELECT (SELECT coalesce(sum(d_next_o_id), 0) FROM district)::int8,
		(SELECT coalesce(sum(xact_commit + xact_rollback), 0) FROM pg_stat_database)::int8`).Scan(&c.NextOrderIDs, &c.Transactions)
	if err != nil {
		return c, fmt.Errorf("reading HammerDB's counters: %w", err)
	}
	return c, nil
}

// hammerDBSampler takes the counters of every schema at the start and the
// end of the measured interval.
type hammerDBSampler struct {
	schemas []*schemaRun
	rampEnd time.Time
	started bool
	err     []error // per schema, the first error
}

// maybeStart takes the start counters once the measured interval begins:
// an interval starting at now is measured (measure.Meter.Add).
func (s *hammerDBSampler) maybeStart(now time.Time) {
	if s.started || now.Before(s.rampEnd.Add(-100*time.Millisecond)) {
		return
	}
	s.started = true
	s.err = make([]error, len(s.schemas))
	for i, p := range s.schemas {
		p.res.Others.HammerDBStart, s.err[i] = readServerCounters(context.Background(), p.admin)
	}
}

// end takes the end counters.
func (s *hammerDBSampler) end() {
	if !s.started {
		return
	}
	for i, p := range s.schemas {
		if s.err[i] != nil {
			continue
		}
		p.res.Others.HammerDBEnd, s.err[i] = readServerCounters(context.Background(), p.admin)
	}
}

// line is the summary's line: the figures as each tool prints them.
func (o OtherTools) line() string {
	hammer := fmt.Sprintf("HammerDB NOPM %d TPM %d (server counters over the measured interval)",
		truncate(o.HammerDBNOPM), truncate(o.HammerDBTPM))
	if o.HammerDBNote != "" {
		hammer = "HammerDB NOPM and TPM unknown (" + o.HammerDBNote + ")"
	}
	return fmt.Sprintf("as other tools report it: %s; BenchmarkSQL 5.0 tpmC %.2f tpmTOTAL %.2f (from the terminals' start, ramp-up included)",
		hammer, o.BenchmarkSQLTpmC, o.BenchmarkSQLTpmTotal)
}

// figures are the headline figures of the other tools.
func (o OtherTools) figures() []workload.Figure {
	var out []workload.Figure
	if o.HammerDBNote == "" {
		out = append(out, workload.Figure{Name: "HammerDB NOPM", Value: o.HammerDBNOPM, Unit: "New-Orders/min (Σ d_next_o_id)"},
			workload.Figure{Name: "HammerDB TPM", Value: o.HammerDBTPM, Unit: "server txn/min (pg_stat_database)"})
	}
	return append(out, workload.Figure{Name: "BenchmarkSQL tpmC", Value: o.BenchmarkSQLTpmC, Unit: "New-Orders/min, ramp-up included"},
		workload.Figure{Name: "BenchmarkSQL tpmTOTAL", Value: o.BenchmarkSQLTpmTotal, Unit: "txn/min, ramp-up included"})
}

// merge gives the merged result of several schemas HammerDB's counters over
// all of them: the sum of their d_next_o_id, and the server's transactions
// once (one server, the same counter for every schema).
func (s *hammerDBSampler) merge(into *OtherTools) {
	for i, p := range s.schemas {
		o := p.res.Others
		if o.HammerDBNote != "" {
			into.HammerDBNote = "schema " + p.res.Options.Schema + ": " + o.HammerDBNote
		}
		into.HammerDBStart.NextOrderIDs += o.HammerDBStart.NextOrderIDs
		into.HammerDBEnd.NextOrderIDs += o.HammerDBEnd.NextOrderIDs
		if i == 0 {
			into.HammerDBStart.Transactions, into.HammerDBEnd.Transactions = o.HammerDBStart.Transactions, o.HammerDBEnd.Transactions
		}
	}
}

// noteErrors records why a schema has no HammerDB figures.
func (s *hammerDBSampler) noteErrors() {
	for i, p := range s.schemas {
		switch {
		case !s.started:
			p.res.Others.HammerDBNote = "the measured interval never began"
		case s.err[i] != nil:
			p.res.Others.HammerDBNote = s.err[i].Error()
		}
	}
}

// compute fills what HammerDB and BenchmarkSQL would report, measured
// being the run's measured interval and session its whole length from the
// terminals' start (ramp-up included); newOrders and all count the
// session's New-Orders (rolled-back ones included) and transactions.
func (o *OtherTools) compute(measured, session time.Duration, newOrders, all int64) {
	if m := measured.Minutes(); m > 0 && o.HammerDBNote == "" {
		o.HammerDBNOPM = float64(o.HammerDBEnd.NextOrderIDs-o.HammerDBStart.NextOrderIDs) / m
		o.HammerDBTPM = float64(o.HammerDBEnd.Transactions-o.HammerDBStart.Transactions) / m
	}
	if m := session.Minutes(); m > 0 {
		o.BenchmarkSQLTpmC = float64(newOrders) / m
		o.BenchmarkSQLTpmTotal = float64(all) / m
	}
}
