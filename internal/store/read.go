package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/secret"
)

// ErrNotFound is returned when no stored run matches a reference.
var ErrNotFound = errors.New("no such run")

// List returns every stored run, newest first, with its headline figures. A
// run still marked running whose process is gone is reported as Incomplete.
func (s *Store) List(ctx context.Context) ([]Summary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, workload, title, status, owner, started_us, ended_us FROM pgoltp_runs ORDER BY started_us DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.where, err)
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var sum Summary
		var status, owner string
		var started, ended int64
		if err := rows.Scan(&sum.ID, &sum.Workload, &sum.Title, &status, &owner, &started, &ended); err != nil {
			return nil, err
		}
		if err := s.checkID(sum.ID); err != nil {
			return nil, err
		}
		sum.Status = effectiveStatus(Status(status), owner)
		sum.StartedAt, sum.EndedAt = fromMicros(started), fromMicros(ended)
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		f, err := s.figures(ctx, out[i].ID)
		if err != nil {
			return nil, err
		}
		out[i].Headline = f
	}
	return out, nil
}

// Resolve turns what a person typed into a run id: an exact id, a unique
// prefix of one, "last" (the newest run) or "last~N" (N runs before it).
func (s *Store) Resolve(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", ErrNotFound
	}
	if ref == "last" || ref == "latest" || strings.HasPrefix(ref, "last~") {
		back := 0
		if n, ok := strings.CutPrefix(ref, "last~"); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 0 {
				return "", fmt.Errorf("%q: write last, or last~N with N a number of runs back", ref)
			}
			back = v
		}
		var id string
		err := s.db.QueryRowContext(ctx, s.bind(`SELECT id FROM pgoltp_runs ORDER BY started_us DESC, id DESC LIMIT 1 OFFSET ?`), back).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return "", ErrNotFound
		}
		if err != nil {
			return "", err
		}
		return id, s.checkID(id)
	}
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT id FROM pgoltp_runs WHERE id = ? OR substr(id, 1, ?) = ? ORDER BY id LIMIT 3`), ref, len(ref), ref)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", s.where, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", err
		}
		if err := s.checkID(id); err != nil {
			return "", err
		}
		if id == ref {
			return id, nil
		}
		ids = append(ids, id)
	}
	switch len(ids) {
	case 0:
		return "", ErrNotFound
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%q matches several runs (%s...): type more of the id", ref, strings.Join(ids, ", "))
}

// Load reads a whole run.
func (s *Store) Load(ctx context.Context, id string) (*Run, error) {
	if err := s.checkID(id); err != nil {
		return nil, err
	}
	r := &Run{ID: id}
	var status string
	var started, ended, ss, se, si, ms, me int64
	err := s.db.QueryRowContext(ctx, s.bind(`SELECT workload, title, status, owner, started_us, ended_us, sample_start_us, sample_end_us, sample_interval_us,
		measure_start_us, measure_end_us FROM pgoltp_runs WHERE id = ?`), id).
		Scan(&r.Workload, &r.Title, &status, &r.Owner, &started, &ended, &ss, &se, &si, &ms, &me)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading run %s: %w", id, err)
	}
	r.Status = effectiveStatus(Status(status), r.Owner)
	r.StartedAt, r.EndedAt = fromMicros(started), fromMicros(ended)
	r.MeasureStart, r.MeasureEnd = fromMicros(ms), fromMicros(me)
	rd := &runReader{s: s, id: id, run: r, samples: &collect.Samples{Start: fromMicros(ss), End: fromMicros(se), Interval: time.Duration(si) * time.Microsecond}}
	for _, read := range []func(context.Context) error{
		rd.params, rd.headline, rd.notes, rd.histograms, rd.hourHistograms, rd.series,
		rd.samplePoints, rd.events, rd.waits, rd.statements, rd.tables, rd.settings, rd.facts, rd.tallies,
	} {
		if err := read(ctx); err != nil {
			return nil, fmt.Errorf("reading run %s: %w", id, err)
		}
	}
	if rd.hasSamples {
		r.Samples = rd.samples
	}
	return r, nil
}

// runReader reads the rows of one run, one method per table, into run and
// samples (kept only when some table had collector data).
type runReader struct {
	s          *Store
	id         string
	run        *Run
	samples    *collect.Samples
	hasSamples bool
}

// headline reads pgoltp_figures.
func (rd *runReader) headline(ctx context.Context) (err error) {
	rd.run.Headline, err = rd.s.figures(ctx, rd.id)
	return err
}

// params reads pgoltp_params.
func (rd *runReader) params(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT name, value FROM pgoltp_params WHERE run_id = ? ORDER BY pos`, rd.id, func(rs *sql.Rows) error {
		var kv KV
		if err := rs.Scan(&kv.Name, &kv.Value); err != nil {
			return err
		}
		// Runs stored before parameters were redacted at write are redacted here.
		kv.Value = secret.Redact(kv.Name, kv.Value)
		rd.run.Params = append(rd.run.Params, kv)
		return nil
	})
}

// notes reads pgoltp_notes.
func (rd *runReader) notes(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT note FROM pgoltp_notes WHERE run_id = ? ORDER BY pos`, rd.id, func(rs *sql.Rows) error {
		var n string
		if err := rs.Scan(&n); err != nil {
			return err
		}
		rd.run.Notes = append(rd.run.Notes, secret.Redact("", n))
		return nil
	})
}

// histograms reads pgoltp_histograms.
func (rd *runReader) histograms(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT txn_type, encoded FROM pgoltp_histograms WHERE run_id = ?`, rd.id, func(rs *sql.Rows) error {
		var t, enc string
		if err := rs.Scan(&t, &enc); err != nil {
			return err
		}
		h, err := hdrhistogram.Decode([]byte(enc))
		if err != nil {
			return fmt.Errorf("decoding the %s histogram: %w", t, err)
		}
		if rd.run.Latency == nil {
			rd.run.Latency = map[string]*hdrhistogram.Snapshot{}
		}
		rd.run.Latency[t] = h.Export()
		return nil
	})
}

// hourHistograms reads pgoltp_hour_histograms, left encoded.
func (rd *runReader) hourHistograms(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT hour, txn_type, encoded FROM pgoltp_hour_histograms WHERE run_id = ? ORDER BY hour, txn_type`, rd.id, func(rs *sql.Rows) error {
		var h HourHistogram
		var enc string
		if err := rs.Scan(&h.Hour, &h.Type, &enc); err != nil {
			return err
		}
		h.Encoded = []byte(enc)
		rd.run.Hourly = append(rd.run.Hourly, h)
		return nil
	})
}

// tallies reads pgoltp_tallies.
func (rd *runReader) tallies(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT name, count, of_count, scale, expected, sd, low, high, allow FROM pgoltp_tallies WHERE run_id = ? ORDER BY pos`, rd.id, func(rs *sql.Rows) error {
		var t Tally
		if err := rs.Scan(&t.Name, &t.Count, &t.Of, &t.Scale, &t.Expected, &t.SD, &t.Low, &t.High, &t.Allow); err != nil {
			return err
		}
		rd.run.Tallies = append(rd.run.Tallies, t)
		return nil
	})
}

// series reads pgoltp_series.
func (rd *runReader) series(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT second, txn_type, length_s, count, errors, p50_us, p95_us, p99_us, max_us FROM pgoltp_series WHERE run_id = ? ORDER BY second, txn_type`, rd.id, func(rs *sql.Rows) error {
		var iv Interval
		if err := rs.Scan(&iv.Second, &iv.Type, &iv.Length, &iv.Count, &iv.Errors, &iv.P50, &iv.P95, &iv.P99, &iv.Max); err != nil {
			return err
		}
		rd.run.Series = append(rd.run.Series, iv)
		return nil
	})
}

// samplePoints reads pgoltp_samples.
func (rd *runReader) samplePoints(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT at_us, metric, key, value FROM pgoltp_samples WHERE run_id = ? ORDER BY metric, key, at_us`, rd.id, func(rs *sql.Rows) error {
		var p collect.Point
		var at int64
		if err := rs.Scan(&at, &p.Metric, &p.Key, &p.Value); err != nil {
			return err
		}
		p.At = fromMicros(at)
		rd.samples.Points = append(rd.samples.Points, p)
		rd.hasSamples = true
		return nil
	})
}

// events reads pgoltp_events.
func (rd *runReader) events(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT at_us, kind, detail FROM pgoltp_events WHERE run_id = ? ORDER BY at_us`, rd.id, func(rs *sql.Rows) error {
		var e collect.Event
		var at int64
		if err := rs.Scan(&at, &e.Kind, &e.Detail); err != nil {
			return err
		}
		e.At = fromMicros(at)
		rd.samples.Events = append(rd.samples.Events, e)
		return nil
	})
}

// waits reads pgoltp_waits.
func (rd *runReader) waits(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT wait_type, wait_event, samples FROM pgoltp_waits WHERE run_id = ? ORDER BY samples DESC, wait_type, wait_event`, rd.id, func(rs *sql.Rows) error {
		var w collect.Wait
		if err := rs.Scan(&w.Type, &w.Event, &w.Samples); err != nil {
			return err
		}
		rd.samples.Waits = append(rd.samples.Waits, w)
		rd.hasSamples = true
		return nil
	})
}

// statements reads pgoltp_statements.
func (rd *runReader) statements(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT queryid, query, calls, total_ms, rows_returned, shared_hit, shared_read, wal_bytes FROM pgoltp_statements WHERE run_id = ? ORDER BY pos`, rd.id, func(rs *sql.Rows) error {
		var st collect.Statement
		if err := rs.Scan(&st.QueryID, &st.Query, &st.Calls, &st.TotalMs, &st.Rows, &st.SharedHit, &st.SharedRead, &st.WALBytes); err != nil {
			return err
		}
		rd.samples.Statements = append(rd.samples.Statements, st)
		rd.hasSamples = true
		return nil
	})
}

// tables reads pgoltp_tables.
func (rd *runReader) tables(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT name, table_before, table_after, index_before, index_after, live_after, dead_after, inserts, updates, hot_updates, deletes, autovacuums, autoanalyzes, freeze_age, bloat_before, bloat_after FROM pgoltp_tables WHERE run_id = ? ORDER BY table_after + index_after DESC, name`, rd.id, func(rs *sql.Rows) error {
		var t collect.Table
		if err := rs.Scan(&t.Name, &t.TableBefore, &t.TableAfter, &t.IndexBefore, &t.IndexAfter, &t.LiveAfter, &t.DeadAfter, &t.Inserts, &t.Updates, &t.HotUpdates, &t.Deletes, &t.Autovacuums, &t.Autoanalyzes, &t.FreezeAge, &t.BloatBefore, &t.BloatAfter); err != nil {
			return err
		}
		rd.samples.Tables = append(rd.samples.Tables, t)
		rd.hasSamples = true
		return nil
	})
}

// settings reads pgoltp_settings.
func (rd *runReader) settings(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT name, setting, unit, source, boot_val, reset_val, pending_restart, risk, risk_reason FROM pgoltp_settings WHERE run_id = ? ORDER BY name`, rd.id, func(rs *sql.Rows) error {
		var st collect.Setting
		var pending int
		if err := rs.Scan(&st.Name, &st.Setting, &st.Unit, &st.Source, &st.BootVal, &st.ResetVal, &pending, &st.Risk, &st.RiskReason); err != nil {
			return err
		}
		st.PendingRestart = pending != 0
		// Runs stored before secrets were redacted at write are redacted here,
		// so no report or export shows one.
		rd.samples.Settings = append(rd.samples.Settings, st.Redacted())
		rd.hasSamples = true
		return nil
	})
}

// facts reads pgoltp_facts.
func (rd *runReader) facts(ctx context.Context) error {
	return rd.s.each(ctx, `SELECT scope, name, value FROM pgoltp_facts WHERE run_id = ? ORDER BY scope, name`, rd.id, func(rs *sql.Rows) error {
		var f collect.Fact
		if err := rs.Scan(&f.Scope, &f.Name, &f.Value); err != nil {
			return err
		}
		f.Value = secret.Redact(f.Name, f.Value)
		rd.hasSamples = true
		switch f.Scope {
		case "cost":
			readCost(&rd.samples.Cost, f)
		case "warning":
			rd.samples.Warnings = append(rd.samples.Warnings, f.Value)
		default:
			rd.samples.Facts = append(rd.samples.Facts, f)
		}
		return nil
	})
}

func readCost(c *collect.Cost, f collect.Fact) {
	n, _ := strconv.ParseInt(f.Value, 10, 64)
	us := time.Duration(n) * time.Microsecond
	switch f.Name {
	case "ticks":
		c.Ticks = int(n)
	case "tick_cpu_us":
		c.TickCPU = us
	case "backend_cpu_us":
		c.BackendCPU = us
	case "snapshot_cpu_us":
		c.SnapshotCPU = us
	case "elapsed_us":
		c.Elapsed = us
	case "backend_local":
		c.BackendLocal = f.Value == "true"
	}
}

func (s *Store) figures(ctx context.Context, id string) ([]Figure, error) {
	var out []Figure
	err := s.each(ctx, `SELECT name, value, unit FROM pgoltp_figures WHERE run_id = ? ORDER BY pos`, id, func(rs *sql.Rows) error {
		var f Figure
		if err := rs.Scan(&f.Name, &f.Value, &f.Unit); err != nil {
			return err
		}
		out = append(out, f)
		return nil
	})
	return out, err
}

func (s *Store) each(ctx context.Context, q, id string, fn func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, s.bind(q), id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// effectiveStatus tells a live run from one whose process died: a run marked
// running by a process of this host that no longer exists is incomplete.
func effectiveStatus(st Status, owner string) Status {
	if st != Running {
		return st
	}
	host, pidText, ok := strings.Cut(owner, ":")
	if !ok {
		return Incomplete
	}
	if me, _ := os.Hostname(); me != host {
		return st // another machine's run: it may well be going
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return Incomplete
	}
	if !processAlive(pid) {
		return Incomplete
	}
	return st
}
