package pgbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestInitMatchesPgbench initialises one database with the real pgbench and
// one with pgoltp pgbench, for several -i option sets, and wants the same
// messages (times aside), table definitions, keys, partitions, row counts
// and sums.
func TestInitMatchesPgbench(t *testing.T) {
	bin := pgtest.Pgbench(t)
	for _, opts := range []string{
		"-i -s 2",
		"-i -q -I dtGvpf -F 90 --unlogged-tables --partitions=3 --partition-method=hash",
		"-i -n --foreign-keys --partitions 2 -I dtgvp",
		"--initialize --init-steps=dtg --fillfactor=70",
		// Scale 20000 switches account ids to bigint; no data, just the DDL.
		"-i -I dtpf -s 20000 --tablespace=pg_default --index-tablespace=pg_default",
		"-i -I dt -s 20000 --partitions 7",
	} {
		t.Run(opts, func(t *testing.T) {
			theirs, ours := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
			args := strings.Fields(opts)
			cmd := exec.Command(bin, append(args, theirs)...)
			var wantErr bytes.Buffer
			cmd.Stderr = &wantErr
			if err := cmd.Run(); err != nil {
				t.Fatalf("pgbench %s: %v: %s", opts, err, wantErr.String())
			}
			var gotErr bytes.Buffer
			env := Env{Stdout: &gotErr, Stderr: &gotErr, Getenv: func(string) string { return "" }}
			if code := Main(context.Background(), append(args, ours), env); code != 0 {
				t.Fatalf("pgoltp pgbench %s: exit %d: %s", opts, code, gotErr.String())
			}
			if g, w := timeless(gotErr.String()), timeless(wantErr.String()); g != w {
				t.Errorf("stderr:\n%s\nwant\n%s", g, w)
			}
			if g, w := describe(t, ours), describe(t, theirs); g != w || !strings.Contains(w, "pgbench_accounts") {
				t.Errorf("database:\n%s\nwant\n%s", g, w)
			}
			// Again, without dropping: both fail the same way.
			again := []string{"-i", "-I", "t", "-q"}
			cmd = exec.Command(bin, append(again, theirs)...)
			wantErr.Reset()
			cmd.Stderr = &wantErr
			_ = cmd.Run()
			gotErr.Reset()
			code := Main(context.Background(), append(again, ours), env)
			if code != cmd.ProcessState.ExitCode() || gotErr.String() != wantErr.String() {
				t.Errorf("-I t on existing tables: exit %d, stderr\n%s\nwant exit %d\n%s", code, gotErr.String(), cmd.ProcessState.ExitCode(), wantErr.String())
			}
		})
	}
}

var seconds = regexp.MustCompile(`\d+\.\d\d s`)

func timeless(s string) string { return seconds.ReplaceAllString(s, "X s") }

// describe lists what pgbench -i makes in a database: relations with their
// kind, persistence, options, columns, partition bounds, constraints and
// indexes, and each table's row count and sums.
func describe(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out strings.Builder
	for _, q := range []string{
		`select c.relname, c.relkind, c.relpersistence, coalesce(array_to_string(c.reloptions, ','), ''),
		        coalesce(pg_get_expr(c.relpartbound, c.oid), ''), coalesce(pg_get_partkeydef(c.oid), ''),
		        (select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || case when a.attnotnull then ' not null' else '' end, ', ' order by a.attnum)
		           from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped)
		   from pg_class c where c.relname like 'pgbench%' and c.relkind in ('r', 'p') order by 1`,
		`select conrelid::regclass::text, conname, pg_get_constraintdef(oid) from pg_constraint
		  where conrelid::regclass::text like 'pgbench%' order by 1, 2`,
		`select indexrelid::regclass::text, pg_get_indexdef(indexrelid) from pg_index
		  where indrelid::regclass::text like 'pgbench%' order by 1`,
		`select 'branches', count(*), sum(bid), sum(bbalance), count(filler) from pgbench_branches
		 union all select 'tellers', count(*), sum(tid + bid), sum(tbalance), count(filler) from pgbench_tellers
		 union all select 'accounts', count(*), sum(aid + bid), sum(abalance), count(filler) from pgbench_accounts
		 union all select 'history', count(*), 0, 0, 0 from pgbench_history`,
		`select count(distinct filler) || ' ' || max(length(filler)) || ' ' || max(octet_length(filler)) from pgbench_accounts`,
	} {
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				out.WriteString(strings.ReplaceAll(strings.TrimSpace(toString(v)), "\n", " ") + " | ")
			}
			out.WriteString("\n")
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out.String()
}

func toString(v any) string {
	if v == nil {
		return "NULL"
	}
	return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(fmtAny(v), "\t", " "), "  ", " "))
}

func fmtAny(v any) string { return fmt.Sprint(v) }
