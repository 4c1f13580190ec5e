package collect

import (
	"strings"
	"testing"
)

// The matrix itself: on every major from 10 to 18 exactly one source of each
// kind runs, and each view only where PostgreSQL has it.
func TestVersionMatrix(t *testing.T) {
	for major := OldestMajor; major <= 18; major++ {
		runs := map[string]bool{}
		for _, e := range QueriesFor(major) {
			runs[e.Name] = true
		}
		one := func(kind string, names ...string) {
			n := 0
			for _, name := range names {
				if runs[name] {
					n++
				}
			}
			if n != 1 {
				t.Errorf("PostgreSQL %d: %d %s sources of %v run, want exactly one", major, n, kind, names)
			}
		}
		one("checkpoint", "pg_stat_bgwriter", "pg_stat_checkpointer")
		one("WAL", "pg_stat_wal", "pg_current_wal_lsn")
		one("statement", "pg_stat_statements", "pg_stat_statements (total_time)")
		want := map[string]bool{
			"pg_stat_wal":          major >= 14,
			"pg_stat_io":           major >= 16,
			"pg_stat_checkpointer": major >= 17,
			"pg_stat_statements":   major >= 13,
		}
		for name, w := range want {
			if runs[name] != w {
				t.Errorf("PostgreSQL %d: %s runs=%v, want %v", major, name, runs[name], w)
			}
		}
		for _, always := range []string{"pg_settings", "pg_stat_database", "pg_stat_activity", "pg_stat_user_tables", "pg_control_checkpoint", "pgstattuple_approx"} {
			if !runs[always] {
				t.Errorf("PostgreSQL %d: %s does not run", major, always)
			}
		}
	}
	// The sampler takes its batch from the same matrix.
	for _, major := range []int{10, 13, 16, 18} {
		s := newPGSampler(major)
		if len(s.queries) == 0 {
			t.Fatalf("no tick queries on %d", major)
		}
		for _, q := range s.queries {
			if !runsOn(q.since, q.until, major) {
				t.Errorf("PostgreSQL %d samples %s, which the matrix excludes", major, q.name)
			}
		}
	}
	testNamedQueries(t)
	if sql := statementsSQL(12); !strings.Contains(sql, "total_time") || strings.Contains(sql, "wal_bytes") {
		t.Errorf("pg_stat_statements before 13 has total_time and no wal_bytes: %s", sql)
	}
}

// testNamedQueries: every named query has one variant on each major from the
// one its view came in, none before, and SQL gives that variant; the ones that
// moved to pg_stat_checkpointer do so at 17.
func testNamedQueries(t *testing.T) {
	since := map[Query]int{WALSinceReset: 14, WALImages: 14, WALBuffersFull: 14}
	for _, q := range Queries {
		for major := OldestMajor; major <= 18; major++ {
			var variants []string
			for _, e := range QueriesFor(major) {
				if e.Name == string(q) {
					variants = append(variants, e.SQL)
				}
			}
			want := 1
			if major < since[q] {
				want = 0
			}
			if len(variants) != want {
				t.Errorf("PostgreSQL %d: %d variants of %q, want %d", major, len(variants), q, want)
				continue
			}
			sql, ok := SQL(q, major)
			if ok != (want == 1) || (ok && sql != variants[0]) {
				t.Errorf("PostgreSQL %d: SQL(%q) = %q, %v; want the matrix's variant", major, q, sql, ok)
			}
			if moved := q == CheckpointCounts || q == DatabaseSnapshot; moved && strings.Contains(sql, "pg_stat_checkpointer") != (major >= 17) {
				t.Errorf("PostgreSQL %d: %q reads checkpoints from the wrong view: %s", major, q, sql)
			}
		}
	}
}
