package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// The oldest and newest majors pgoltp manages, downloaded once into the shared
// cache (/var/cache/pgoltp for root) and reused by every package of a run:
// lifecycle, the three extensions, every collector query of the version
// matrix, a short TPC-B and TPC-C run, and a report.
func TestOldestAndNewestMajors(t *testing.T) {
	t.Parallel()
	for _, major := range []int{10, 18} {
		t.Run("pg"+strconv.Itoa(major), func(t *testing.T) {
			lab := labDir(t)
			r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab, "--pg", strconv.Itoa(major), "--json")
			if r.code != 0 {
				t.Fatalf("cluster up --pg %d: exit %d: %s", major, r.code, r.stderr)
			}
			t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
			c, err := cluster.Open(lab)
			if err != nil {
				t.Fatal(err)
			}
			if c.Major != major || !strings.HasPrefix(c.Version, strconv.Itoa(major)+".") {
				t.Fatalf("asked for PostgreSQL %d, got %d (%s)", major, c.Major, c.Version)
			}
			checkExtensionsAndMatrix(t, c, major)

			for _, step := range [][]string{
				{"tpcb", "load", "--scale", "1"},
				{"tpcb", "run", "-T", "3", "-c", "2"},
				{"tpcc", "load", "--warehouses", "1"},
				{"tpcc", "run", "--duration", "3s"},
				{"report"},
			} {
				r := runPgoltp(t, 3*time.Minute, append([]string{"--lab", lab}, step...)...)
				if r.code != 0 {
					t.Fatalf("PostgreSQL %d: pgoltp %s: exit %d\n%s%s", major, strings.Join(step, " "), r.code, r.stdout, r.stderr)
				}
			}
			r = runPgoltp(t, time.Minute, "--lab", lab, "runs", "--json")
			var runs []struct {
				Workload string `json:"workload"`
				Status   string `json:"status"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil {
				t.Fatalf("runs --json: %v\n%s", err, r.stdout)
			}
			got := map[string]string{}
			for _, run := range runs {
				got[run.Workload] = run.Status
			}
			if got["tpcb"] != "complete" || got["tpcc"] != "complete" {
				t.Errorf("PostgreSQL %d: stored runs %v, want a complete tpcb and tpcc run", major, got)
			}
			reports, _ := os.ReadDir(lab + "/reports")
			if len(reports) == 0 {
				t.Fatalf("PostgreSQL %d: no report written", major)
			}
			html, err := os.ReadFile(lab + "/reports/" + reports[0].Name())
			if err != nil {
				t.Fatal(err)
			}
			// Every per-tick query of the major ran; a view the major lacks
			// is an absent panel, not an error.
			for _, failed := range []string{"not sampling", "no top statements", "no table sizes", "no bloat estimates"} {
				if strings.Contains(string(html), failed) {
					t.Errorf("PostgreSQL %d: the report says %q", major, failed)
				}
			}
			if !strings.Contains(string(html), "WAL written") {
				t.Errorf("PostgreSQL %d: the report has no WAL panel", major)
			}
			if major < 16 && strings.Contains(string(html), "(pg_stat_io)") {
				t.Errorf("PostgreSQL %d has no pg_stat_io, yet the report has its panel", major)
			}
		})
	}
}

// checkExtensionsAndMatrix creates pg_stat_statements, pgstattuple and
// pg_prewarm, and runs every collector query the matrix gives the major.
func checkExtensionsAndMatrix(t *testing.T, c *cluster.Cluster, major int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// scram-sha-256 is not the default password_encryption before 14: the
	// superuser's password must have been hashed with it all the same.
	var hash string
	if err := conn.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = 'postgres'").Scan(&hash); err != nil || !strings.HasPrefix(hash, "SCRAM-SHA-256$") {
		t.Errorf("PostgreSQL %d: the superuser password is not a SCRAM-SHA-256 verifier (%v)", major, err)
	}
	for _, ext := range []string{"pg_stat_statements", "pgstattuple", "pg_prewarm"} {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+ext); err != nil {
			t.Errorf("PostgreSQL %d: extension %s is missing: %v", major, ext, err)
		}
	}
	queries := collect.QueriesFor(major)
	for _, q := range queries {
		rows, err := conn.Query(ctx, q.SQL, q.Args...)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			t.Errorf("PostgreSQL %d: collector query %s: %v", major, q.Name, err)
		}
	}
	if len(queries) < 8 {
		t.Errorf("PostgreSQL %d: only %d collector queries in the matrix", major, len(queries))
	}
}

// compare-versions with the system's major and PostgreSQL 10: both majors
// run, each run is stored, the setting is translated for 10, and the
// comparison carries every figure.
func TestCompareVersions(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	installed, ok := cluster.Find(0, cluster.CacheDir())
	if !ok {
		t.Skip("no PostgreSQL installed")
	}
	other := 10
	if installed.Major == 10 {
		other = 18
	}
	majors := strconv.Itoa(installed.Major) + "," + strconv.Itoa(other)
	r := runPgoltp(t, 8*time.Minute, "--lab", lab, "--json", "compare-versions", "--pg", majors, "--workload", "tpcb",
		"--scale", "1", "--clients", "2", "--duration", "3s", "--repetitions", "1", "--set", "wal_keep_size=64MB", "-o", lab+"/versions.html")
	t.Cleanup(func() {
		for _, m := range []int{installed.Major, other} {
			runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab+"/pg"+strconv.Itoa(m))
		}
	})
	if r.code != 0 {
		t.Fatalf("compare-versions: exit %d\n%s", r.code, r.stderr)
	}
	var c struct {
		Settings []struct {
			Major       int
			Name, Value string
		} `json:"settings"`
		Majors []struct {
			Major   int      `json:"major"`
			RunIDs  []string `json:"run_ids"`
			Figures []struct {
				Name string  `json:"name"`
				Mean float64 `json:"mean"`
				N    int     `json:"n"`
			} `json:"figures"`
		} `json:"majors"`
		Statements []struct {
			Query string `json:"query"`
		} `json:"top_statements"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("compare-versions --json: %v\n%s", err, r.stdout)
	}
	if len(c.Majors) != 2 {
		t.Fatalf("%d majors in the comparison, want 2: %s", len(c.Majors), r.stdout)
	}
	var ids []string
	for _, m := range c.Majors {
		if len(m.RunIDs) != 1 {
			t.Errorf("PostgreSQL %d: runs %v, want one", m.Major, m.RunIDs)
		}
		ids = append(ids, m.RunIDs...)
		figures := map[string]int{}
		for _, f := range m.Figures {
			figures[f.Name] = f.N
			if f.Name == "throughput" && f.Mean <= 0 {
				t.Errorf("PostgreSQL %d: throughput %v", m.Major, f.Mean)
			}
			if f.Name == "WAL per transaction" && f.Mean <= 0 {
				t.Errorf("PostgreSQL %d: WAL per transaction %v", m.Major, f.Mean)
			}
		}
		for _, name := range []string{"throughput", "latency p50", "latency p95", "latency p99", "database growth", "index growth",
			"WAL per transaction", "HOT updates", "dead tuples after", "autovacuum runs", "checkpoints"} {
			if figures[name] != 1 {
				t.Errorf("PostgreSQL %d: figure %q has %d values, want 1", m.Major, name, figures[name])
			}
		}
	}
	if len(c.Statements) == 0 {
		t.Error("no top statements in the comparison")
	}
	translated := map[int]string{}
	for _, s := range c.Settings {
		translated[s.Major] = s.Name + "=" + s.Value
	}
	if translated[10] != "wal_keep_segments=4" {
		t.Errorf("wal_keep_size=64MB on PostgreSQL 10 became %q, want wal_keep_segments=4", translated[10])
	}
	// The study's settings last as long as the study: each cluster is put
	// back (read back) and keeps no restore record.
	for _, m := range []int{installed.Major, other} {
		cl, err := cluster.Open(lab + "/pg" + strconv.Itoa(m))
		if err != nil {
			t.Fatal(err)
		}
		name := "wal_keep_size"
		if m < 13 {
			name = "wal_keep_segments"
		}
		if got := showSettings(t, cl.DSN("postgres"), []string{name})[name]; got != "0" {
			t.Errorf("PostgreSQL %d keeps the study's %s=%s after it", m, name, got)
		}
		if left, _ := filepath.Glob(lab + "/pg" + strconv.Itoa(m) + "/restore/*.json"); len(left) != 0 {
			t.Errorf("PostgreSQL %d: restore records stay: %v", m, left)
		}
	}
	refuseAfterKilledStudy(t, lab, installed.Major, majors)
	r = runPgoltp(t, time.Minute, "--lab", lab, "runs", "--json")
	html, err := os.ReadFile(lab + "/versions.html")
	if err != nil {
		t.Error(err)
	}
	for _, id := range ids {
		if !strings.Contains(r.stdout, id) {
			t.Errorf("run %s is not in the results store", id)
		}
		if !strings.Contains(string(html), id) {
			t.Errorf("run %s is not in the HTML comparison", id)
		}
	}
}

// Bad input to compare-versions is one line and exit 2, before any cluster is made.
func TestCompareVersionsBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args    []string
		mention string
	}{
		{[]string{"--pg", "15"}, "at least two majors"},
		{[]string{"--pg", "9,15"}, "10 to 18"},
		{[]string{"--pg", "10,x"}, "--pg"},
		{[]string{"--pg", "10,15", "--workload", "ycsb"}, "--workload"},
		{[]string{"--pg", "10,15", "--duration", "soon"}, "--duration"},
		{[]string{"--pg", "10,15", "--set", "shared_buffers"}, "name=value"},
		{[]string{"--pg", "10,15", "--set", "fsync=off"}, "unsafe"},
		{[]string{"--pg", "10,15", "--set", "max_wal_size=lots"}, "max_wal_size"},
	}
	for _, c := range cases {
		lab := labDir(t)
		r := runPgoltp(t, time.Minute, append([]string{"--lab", lab, "compare-versions"}, c.args...)...)
		assertOneLineProblem(t, r, c.mention)
		if _, err := os.Stat(lab); err == nil {
			t.Errorf("%v: the lab was created", c.args)
		}
	}
}

// An experiment plan with versions: runs the study of compare-versions;
// repeated, it closes with a run of the first major and pairs each run of
// the second with the first's runs before and after it.
func TestExperimentVersionsPlan(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	if err := os.MkdirAll(lab, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := lab + "/versions.yaml"
	if err := os.WriteFile(plan, []byte("workload: {kind: tpcb, scale: 1, clients: 2}\nduration: 2s\nrepetitions: 2\nversions: [10, 15]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, m := range []string{"10", "15"} {
			runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab+"/pg"+m)
		}
	})
	r := runPgoltp(t, 8*time.Minute, "--lab", lab, "experiment", plan)
	if r.code != 0 {
		t.Fatalf("experiment versions plan: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"PG 10.", "PG 15.", "WAL per transaction", "top statements", " (3 runs)", " (2 runs)", "(paired, 2 pairs, each run against PG 10."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// refuseAfterKilledStudy: with the record a killed study leaves on one
// major's cluster, the next study refuses in one line naming the restore
// of that cluster's lab, and that restore clears it.
func refuseAfterKilledStudy(t *testing.T, lab string, major int, majors string) {
	t.Helper()
	sub := lab + "/pg" + strconv.Itoa(major)
	cl, err := cluster.Open(sub)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), cl.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	live, _, err := settings.ReadServer(context.Background(), conn, "commit_delay")
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	guard, err := pending.ForCluster(sub, "compare-versions")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := guard.Begin(live, []string{"commit_delay"}); err != nil {
		t.Fatal(err)
	}
	// The record is this test's, and this test is alive: give it the pid of
	// a process that has ended, as a killed study's would be.
	rec, err := pending.Find(sub, pending.ClusterKey(sub))
	if err != nil || rec == nil {
		t.Fatalf("the record just written: %v %v", rec, err)
	}
	rec.PID = endedPID(t)
	if err := pending.Write(sub, rec); err != nil {
		t.Fatal(err)
	}
	r := runPgoltp(t, time.Minute, "--lab", lab, "compare-versions", "--pg", majors, "--workload", "tpcb",
		"--scale", "1", "--clients", "2", "--duration", "3s", "--repetitions", "1")
	// The study's progress ("== PostgreSQL 18 in ...") comes first; the
	// problem is its last line.
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	if r.code != 2 || !strings.HasPrefix(last, "pgoltp: ") || !strings.Contains(last, "pgoltp restore --lab "+sub) || !strings.Contains(last, "commit_delay") {
		t.Fatalf("compare-versions over a pending record: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runPgoltp(t, 2*time.Minute, "restore", "--lab", sub); r.code != 0 || !strings.Contains(r.stdout, "commit_delay") {
		t.Fatalf("restore --lab %s: exit %d %s%s", sub, r.code, r.stdout, r.stderr)
	}
	if rec, err := pending.Find(sub, pending.ClusterKey(sub)); rec != nil || err != nil {
		t.Fatalf("record after restore: %v %v", rec, err)
	}
}

// endedPID is the pid of a process that has run and ended.
func endedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
