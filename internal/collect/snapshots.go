package collect

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// topStatements is how many statements a run keeps from pg_stat_statements.
const topStatements = 20

// trackedTables is how many of the largest tables are followed per tick and
// reported before/after.
const trackedTables = 30

// settingsSnapshot reads all of pg_settings and labels each value's risk from
// the settings catalog (internal/settings), e.g. fsync=off can corrupt on a crash.
func settingsSnapshot(ctx context.Context, conn *pgx.Conn, major int) ([]Setting, error) {
	rows, err := conn.Query(ctx, settingsSQL)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Setting, error) {
		var s Setting
		err := r.Scan(&s.Name, &s.Setting, &s.Unit, &s.Source, &s.BootVal, &s.ResetVal, &s.PendingRestart)
		return s.Redacted(), err
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		if risk, why := settings.LabelFor(major, out[i].Name, valueWithUnit(out[i])); risk.Unsafe() || out[i].Changed() {
			out[i].Risk, out[i].RiskReason = string(risk), why
		}
	}
	return out, nil
}

// valueWithUnit spells a pg_settings value as one would write it in a file:
// setting 131072 with unit 8kB is "1GB" to the catalog's parser.
func valueWithUnit(s Setting) string {
	if s.Unit == "" {
		return s.Setting
	}
	return s.Setting + s.Unit
}

// serverFacts are the one-time facts about the server.
func serverFacts(ctx context.Context, conn *pgx.Conn) []Fact {
	var out []Fact
	var version, db string
	var size int64
	var uptime string
	if err := conn.QueryRow(ctx, `SELECT version(), current_database(), pg_database_size(current_database()),
		coalesce(date_trunc('second', now() - pg_postmaster_start_time())::text, '')`).Scan(&version, &db, &size, &uptime); err == nil {
		out = append(out,
			Fact{Scope: "server", Name: "version", Value: version},
			Fact{Scope: "server", Name: "database", Value: db},
			Fact{Scope: "server", Name: "database_size_before", Value: fmt.Sprint(size)},
			Fact{Scope: "server", Name: "uptime", Value: uptime})
	}
	return out
}

// readStatements reads pg_stat_statements for the current database, summed
// per queryid (one query can appear per user and per nesting level).
func readStatements(ctx context.Context, conn *pgx.Conn, major int) (map[int64]Statement, error) {
	rows, err := conn.Query(ctx, statementsSQL(major))
	if err != nil {
		return nil, err
	}
	out := map[int64]Statement{}
	for rows.Next() {
		var s Statement
		if err := rows.Scan(&s.QueryID, &s.Query, &s.Calls, &s.TotalMs, &s.Rows, &s.SharedHit, &s.SharedRead, &s.WALBytes); err != nil {
			rows.Close()
			return nil, err
		}
		out[s.QueryID] = s
	}
	return out, rows.Err()
}

// statementDelta is what ran between two pg_stat_statements readings, top by
// total time. A statement evicted and re-entered counts from zero.
func statementDelta(before, after map[int64]Statement) []Statement {
	var out []Statement
	for id, a := range after {
		if isCollectorQuery(a.Query) {
			continue
		}
		b, ok := before[id]
		if ok && a.Calls >= b.Calls {
			a.Calls -= b.Calls
			a.TotalMs -= b.TotalMs
			a.Rows -= b.Rows
			a.SharedHit -= b.SharedHit
			a.SharedRead -= b.SharedRead
			a.WALBytes -= b.WALBytes
		}
		if a.Calls > 0 {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].TotalMs != out[j].TotalMs {
			return out[i].TotalMs > out[j].TotalMs
		}
		return out[i].QueryID < out[j].QueryID
	})
	if len(out) > topStatements {
		out = out[:topStatements]
	}
	return out
}

// isCollectorQuery recognizes pgoltp's own statistics queries, which would
// otherwise show up among the run's statements.
func isCollectorQuery(q string) bool {
	for _, marker := range []string{"pg_stat_", "pg_control_checkpoint", "pg_settings", "pgstattuple", "pg_database_size", "pg_current_wal_lsn", "server_version_num", "pg_available_extensions"} {
		if strings.Contains(q, marker) {
			return true
		}
	}
	return false
}

// Time limits of the bloat estimates, before and after the run each.
const (
	bloatBudget   = 10 * time.Second
	bloatPerTable = 3 * time.Second
)

// tableState is one reading of a table's size and counters.
type tableState struct {
	oid                                   uint32
	name                                  string
	table, index, live, dead              int64
	ins, upd, hot, del, autovac, autoanal int64
	freezeAge                             int64
	bloat                                 float64
}

// readTables reads the largest user tables of the database: sizes, counters,
// freeze age, and with pgstattuple the share of the heap that is free or dead.
func readTables(ctx context.Context, conn *pgx.Conn, withBloat bool) ([]tableState, error) {
	rows, err := conn.Query(ctx, tablesSQL, trackedTables)
	if err != nil {
		return nil, err
	}
	var out []tableState
	for rows.Next() {
		t := tableState{bloat: -1}
		if err := rows.Scan(&t.oid, &t.name, &t.table, &t.index, &t.live, &t.dead, &t.ins, &t.upd, &t.hot, &t.del, &t.autovac, &t.autoanal, &t.freezeAge); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if withBloat {
		// pgstattuple_approx reads every page the visibility map does not vouch
		// for: on a freshly loaded big table that is all of it. A time budget
		// keeps it from delaying the run or loading the disks; tables it does
		// not reach have no estimate.
		deadline := time.Now().Add(bloatBudget)
		for i := range out {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			// A server-side timeout: a cancelled context would close the
			// collector's connection, statement_timeout only ends the query.
			limit := strconv.FormatInt(min(left, bloatPerTable).Milliseconds(), 10)
			if _, err := conn.Exec(ctx, `SELECT set_config('statement_timeout', $1, false)`, limit); err != nil {
				break
			}
			var pct float64
			// free + dead share is what VACUUM FULL would give back.
			err := conn.QueryRow(ctx, bloatSQL, out[i].oid).Scan(&pct)
			if err == nil {
				out[i].bloat = pct
			}
		}
		if _, err := conn.Exec(ctx, `RESET statement_timeout`); err != nil {
			return out, err
		}
	}
	return out, nil
}

// tableDelta pairs the before and after readings of each table.
func tableDelta(before, after []tableState) []Table {
	prev := map[uint32]tableState{}
	for _, b := range before {
		prev[b.oid] = b
	}
	var out []Table
	for _, a := range after {
		b, ok := prev[a.oid]
		if !ok {
			b = tableState{bloat: -1}
		}
		out = append(out, Table{
			Name: a.name, TableBefore: b.table, TableAfter: a.table, IndexBefore: b.index, IndexAfter: a.index,
			LiveAfter: a.live, DeadAfter: a.dead,
			Inserts: a.ins - b.ins, Updates: a.upd - b.upd, HotUpdates: a.hot - b.hot, Deletes: a.del - b.del,
			Autovacuums: a.autovac - b.autovac, Autoanalyzes: a.autoanal - b.autoanal,
			FreezeAge: a.freezeAge, BloatBefore: b.bloat, BloatAfter: a.bloat,
		})
	}
	return out
}

// ensureExtension creates an extension when it is available and missing; the
// error says why it could not (e.g. not in shared_preload_libraries).
func ensureExtension(ctx context.Context, conn *pgx.Conn, name string) error {
	var installed, available bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1),
		EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = $1)`, name).Scan(&installed, &available); err != nil {
		return err
	}
	if installed {
		return nil
	}
	if !available {
		return fmt.Errorf("extension %s is not installed on the server", name)
	}
	_, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+pgx.Identifier{name}.Sanitize())
	return err
}

func sortWaits(w []Wait) {
	sort.Slice(w, func(i, j int) bool {
		if w[i].Samples != w[j].Samples {
			return w[i].Samples > w[j].Samples
		}
		if w[i].Type != w[j].Type {
			return w[i].Type < w[j].Type
		}
		return w[i].Event < w[j].Event
	})
}
