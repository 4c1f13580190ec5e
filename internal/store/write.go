package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/secret"
)

// Begin stores run as running, with its parameters, in one transaction, and
// returns its id (run.ID, or a new one when empty; run.ID is set either way).
func (s *Store) Begin(ctx context.Context, run *Run) (string, error) {
	if run.StartedAt.IsZero() {
		run.StartedAt = time.Now()
	}
	if run.ID == "" {
		run.ID = NewID(run.StartedAt)
	}
	if !ValidID(run.ID) {
		return "", fmt.Errorf("storing run %q: %w", run.ID, errBadID)
	}
	if run.Owner == "" {
		host, _ := os.Hostname()
		run.Owner = host + ":" + strconv.Itoa(os.Getpid())
	}
	run.Status = Running
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO pgoltp_runs (id, workload, title, status, owner, started_us, ended_us) VALUES (?, ?, ?, ?, ?, ?, 0)`),
			run.ID, run.Workload, run.Title, string(Running), run.Owner, micros(run.StartedAt)); err != nil {
			return err
		}
		return s.writeParams(ctx, tx, run)
	})
	if err != nil {
		return "", fmt.Errorf("storing run %s in %s: %w", run.ID, s.where, err)
	}
	return run.ID, nil
}

// AppendSamples stores sampled points and events of a running run in one
// transaction, so a crash keeps what was sampled so far and a long run need
// not hold them in memory. Finish keeps the appended rows when run.Samples
// says points or events were handed out during the run (Taken, EventsTaken),
// and adds only run.Samples.Points and Events.
func (s *Store) AppendSamples(ctx context.Context, id string, points []collect.Point, events []collect.Event) error {
	if len(points) == 0 && len(events) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.writePoints(ctx, tx, id, points); err != nil {
			return err
		}
		return s.insert(ctx, tx, "pgoltp_events", eventColumns, eventRows(id, events))
	})
	if err != nil {
		return fmt.Errorf("appending samples of run %s: %w", id, err)
	}
	return nil
}

// AppendHours stores the hourly histograms of a running run in one
// transaction, as each hour closes, so a week-long run never holds more than
// its current hour in memory. Storing an hour again replaces it.
func (s *Store) AppendHours(ctx context.Context, id string, hours []HourHistogram) error {
	if len(hours) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error { return s.writeHours(ctx, tx, id, hours) })
	if err != nil {
		return fmt.Errorf("appending hourly histograms of run %s: %w", id, err)
	}
	return nil
}

// AppendSeries stores intervals of a running run's series in one
// transaction, so that a run of any length keeps every second in the store
// without holding its series in memory. Finish keeps the appended rows when
// run.SeriesAppended is set, and adds only run.Series.
func (s *Store) AppendSeries(ctx context.Context, id string, series []Interval) error {
	if len(series) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.insert(ctx, tx, "pgoltp_series", seriesColumns, seriesRows(id, series))
	})
	if err != nil {
		return fmt.Errorf("appending the series of run %s: %w", id, err)
	}
	return nil
}

var eventColumns = []string{"run_id", "at_us", "kind", "detail"}

func eventRows(id string, events []collect.Event) [][]any {
	rows := make([][]any, len(events))
	for i, e := range events {
		rows[i] = []any{id, micros(e.At), e.Kind, e.Detail}
	}
	return rows
}

var seriesColumns = []string{"run_id", "second", "txn_type", "length_s", "count", "errors", "p50_us", "p95_us", "p99_us", "max_us"}

func seriesRows(id string, series []Interval) [][]any {
	rows := make([][]any, len(series))
	for i, iv := range series {
		rows[i] = []any{id, iv.Second, iv.Type, iv.Length, iv.Count, iv.Errors, iv.P50, iv.P95, iv.P99, iv.Max}
	}
	return rows
}

// writeHours replaces the rows of the hours given (other hours stay).
func (s *Store) writeHours(ctx context.Context, tx *sql.Tx, id string, hours []HourHistogram) error {
	seen := map[int]bool{}
	rows := make([][]any, 0, len(hours))
	for _, h := range hours {
		if !seen[h.Hour] {
			seen[h.Hour] = true
			if _, err := tx.ExecContext(ctx, s.bind(`DELETE FROM pgoltp_hour_histograms WHERE run_id = ? AND hour = ?`), id, h.Hour); err != nil {
				return err
			}
		}
		rows = append(rows, []any{id, h.Hour, h.Type, string(h.Encoded)})
	}
	return s.insert(ctx, tx, "pgoltp_hour_histograms", []string{"run_id", "hour", "txn_type", "encoded"}, rows)
}

// Finish stores everything of run and its final status in one transaction:
// either the whole run is there afterwards, or it stays as it was (running,
// hence shown as incomplete). Finish may be called again to rewrite a run.
// Sampled points and events already appended during the run
// (run.Samples.Taken or EventsTaken > 0) are kept, and only run.Samples.Points
// and Events (what is left) are added: the final write
// of a week-long run is as small as that of a minute-long one. Otherwise the
// points are rewritten from run.Samples.Points. The series is kept and added
// to the same way when run.SeriesAppended is set. Hourly histograms appended
// during the run are kept too; Finish writes the hours in run.Hourly (the
// last, partial one), replacing those hours only.
func (s *Store) Finish(ctx context.Context, run *Run) error {
	if run.ID == "" {
		return fmt.Errorf("finishing a run that was never begun")
	}
	if run.Status == "" || run.Status == Running || run.Status == Incomplete {
		run.Status = Complete
	}
	if run.EndedAt.IsZero() {
		run.EndedAt = time.Now()
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		streamed := run.Samples != nil && (run.Samples.Taken > 0 || run.Samples.EventsTaken > 0)
		for _, t := range runTables {
			if ((t == "pgoltp_samples" || t == "pgoltp_events") && streamed) || (t == "pgoltp_series" && run.SeriesAppended) {
				continue
			}
			if _, err := tx.ExecContext(ctx, s.bind(`DELETE FROM `+t+` WHERE run_id = ?`), run.ID); err != nil {
				return err
			}
		}
		var ss, se, si int64
		if sm := run.Samples; sm != nil {
			ss, se, si = micros(sm.Start), micros(sm.End), int64(sm.Interval/time.Microsecond)
		}
		res, err := tx.ExecContext(ctx, s.bind(`UPDATE pgoltp_runs SET workload = ?, title = ?, status = ?, started_us = ?, ended_us = ?,
			sample_start_us = ?, sample_end_us = ?, sample_interval_us = ?, measure_start_us = ?, measure_end_us = ? WHERE id = ?`),
			run.Workload, run.Title, string(run.Status), micros(run.StartedAt), micros(run.EndedAt), ss, se, si,
			micros(run.MeasureStart), micros(run.MeasureEnd), run.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("run %s was never begun", run.ID)
		}
		return s.writeAll(ctx, tx, run)
	})
	if err != nil {
		return fmt.Errorf("storing run %s in %s: %w", run.ID, s.where, err)
	}
	return nil
}

func (s *Store) writeParams(ctx context.Context, tx *sql.Tx, run *Run) error {
	rows := make([][]any, len(run.Params))
	for i, kv := range run.Params {
		rows[i] = []any{run.ID, i, kv.Name, secret.Redact(kv.Name, kv.Value)}
	}
	return s.insert(ctx, tx, "pgoltp_params", []string{"run_id", "pos", "name", "value"}, rows)
}

func (s *Store) writePoints(ctx context.Context, tx *sql.Tx, id string, points []collect.Point) error {
	rows := make([][]any, len(points))
	for i, p := range points {
		rows[i] = []any{id, micros(p.At), p.Metric, p.Key, p.Value}
	}
	return s.insert(ctx, tx, "pgoltp_samples", []string{"run_id", "at_us", "metric", "key", "value"}, rows)
}

// writeAll writes every per-run table of run (Finish has just emptied them).
func (s *Store) writeAll(ctx context.Context, tx *sql.Tx, run *Run) error {
	if err := s.writeParams(ctx, tx, run); err != nil {
		return err
	}
	if err := s.writeHours(ctx, tx, run.ID, run.Hourly); err != nil {
		return err
	}
	batches, err := runBatches(run)
	if err != nil {
		return err
	}
	if sm := run.Samples; sm != nil {
		if err := s.writePoints(ctx, tx, run.ID, sm.Points); err != nil {
			return err
		}
		batches = append(batches, sampleBatches(run.ID, sm)...)
	}
	for _, b := range batches {
		if err := s.insert(ctx, tx, b.table, b.cols, b.rows); err != nil {
			return err
		}
	}
	return nil
}

// batch is the rows of one table to insert.
type batch struct {
	table string
	cols  []string
	rows  [][]any
}

// runBatches are the rows of the driver's results: headline figures, notes,
// latency histograms and the per-second series.
func runBatches(run *Run) ([]batch, error) {
	id := run.ID
	var figures, notes, hists, tallies [][]any
	for i, f := range run.Headline {
		figures = append(figures, []any{id, i, f.Name, f.Value, f.Unit})
	}
	for i, n := range run.Notes {
		notes = append(notes, []any{id, i, secret.Redact("", n)})
	}
	types := make([]string, 0, len(run.Latency))
	for t := range run.Latency {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		snap := run.Latency[t]
		if snap == nil {
			continue
		}
		enc, err := hdrhistogram.Import(snap).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, fmt.Errorf("encoding the %s histogram: %w", t, err)
		}
		hists = append(hists, []any{id, t, string(enc)})
	}
	for i, t := range run.Tallies {
		tallies = append(tallies, []any{id, i, t.Name, t.Count, t.Of, t.Scale, t.Expected, t.SD, t.Low, t.High, t.Allow})
	}
	return []batch{
		{"pgoltp_figures", []string{"run_id", "pos", "name", "value", "unit"}, figures},
		{"pgoltp_notes", []string{"run_id", "pos", "note"}, notes},
		{"pgoltp_histograms", []string{"run_id", "txn_type", "encoded"}, hists},
		{"pgoltp_series", seriesColumns, seriesRows(id, run.Series)},
		{"pgoltp_tallies", []string{"run_id", "pos", "name", "count", "of_count", "scale", "expected", "sd", "low", "high", "allow"}, tallies},
	}, nil
}

// sampleBatches are the rows of what the collectors saw (the points are
// written apart, by writePoints).
func sampleBatches(id string, sm *collect.Samples) []batch {
	var waits, stmts, tables, settings, facts [][]any
	for _, w := range sm.Waits {
		waits = append(waits, []any{id, w.Type, w.Event, w.Samples})
	}
	for i, st := range sm.Statements {
		stmts = append(stmts, []any{id, i, st.QueryID, st.Query, st.Calls, st.TotalMs, st.Rows, st.SharedHit, st.SharedRead, st.WALBytes})
	}
	for _, t := range sm.Tables {
		tables = append(tables, []any{id, t.Name, t.TableBefore, t.TableAfter, t.IndexBefore, t.IndexAfter, t.LiveAfter, t.DeadAfter,
			t.Inserts, t.Updates, t.HotUpdates, t.Deletes, t.Autovacuums, t.Autoanalyzes, t.FreezeAge, t.BloatBefore, t.BloatAfter})
	}
	for _, st := range sm.Settings {
		st = st.Redacted() // never store a secret, whoever collected the snapshot
		settings = append(settings, []any{id, st.Name, st.Setting, st.Unit, st.Source, st.BootVal, st.ResetVal, boolInt(st.PendingRestart), st.Risk, st.RiskReason})
	}
	seen := map[string]bool{}
	for _, f := range append(sm.Facts, costFacts(sm.Cost)...) {
		if k := f.Scope + "\x00" + f.Name; !seen[k] {
			seen[k] = true
			facts = append(facts, []any{id, f.Scope, f.Name, secret.Redact(f.Name, f.Value)})
		}
	}
	for i, w := range sm.Warnings {
		facts = append(facts, []any{id, "warning", strconv.Itoa(i), w})
	}
	return []batch{
		{"pgoltp_events", eventColumns, eventRows(id, sm.Events)},
		{"pgoltp_waits", []string{"run_id", "wait_type", "wait_event", "samples"}, waits},
		{"pgoltp_statements", []string{"run_id", "pos", "queryid", "query", "calls", "total_ms", "rows_returned", "shared_hit", "shared_read", "wal_bytes"}, stmts},
		{"pgoltp_tables", []string{"run_id", "name", "table_before", "table_after", "index_before", "index_after", "live_after", "dead_after",
			"inserts", "updates", "hot_updates", "deletes", "autovacuums", "autoanalyzes", "freeze_age", "bloat_before", "bloat_after"}, tables},
		{"pgoltp_settings", []string{"run_id", "name", "setting", "unit", "source", "boot_val", "reset_val", "pending_restart", "risk", "risk_reason"}, settings},
		{"pgoltp_facts", []string{"run_id", "scope", "name", "value"}, facts},
	}
}

// costFacts keeps the collectors' self-cost as facts of scope "cost".
func costFacts(c collect.Cost) []collect.Fact {
	if c.Ticks == 0 && c.SnapshotCPU == 0 {
		return nil
	}
	return []collect.Fact{
		{Scope: "cost", Name: "ticks", Value: strconv.Itoa(c.Ticks)},
		{Scope: "cost", Name: "tick_cpu_us", Value: strconv.FormatInt(c.TickCPU.Microseconds(), 10)},
		{Scope: "cost", Name: "backend_cpu_us", Value: strconv.FormatInt(c.BackendCPU.Microseconds(), 10)},
		{Scope: "cost", Name: "snapshot_cpu_us", Value: strconv.FormatInt(c.SnapshotCPU.Microseconds(), 10)},
		{Scope: "cost", Name: "elapsed_us", Value: strconv.FormatInt(c.Elapsed.Microseconds(), 10)},
		{Scope: "cost", Name: "backend_local", Value: strconv.FormatBool(c.BackendLocal)},
	}
}

// insert writes rows in multi-row INSERTs: one round trip per few hundred rows
// matters when the store is a remote PostgreSQL.
func (s *Store) insert(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) error {
	const perStatement = 400
	for len(rows) > 0 {
		n := min(len(rows), perStatement)
		var q strings.Builder
		q.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
		row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
		args := make([]any, 0, n*len(cols))
		for i := range n {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString(row)
			args = append(args, rows[i]...)
		}
		if _, err := tx.ExecContext(ctx, s.bind(q.String()), args...); err != nil {
			return fmt.Errorf("writing %s: %w", strings.TrimPrefix(table, "pgoltp_"), err)
		}
		rows = rows[n:]
	}
	return nil
}

func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

func fromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
