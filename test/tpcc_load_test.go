package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func TestTpccLoadCheckBadInput(t *testing.T) {
	t.Parallel()
	dsn := "postgres://nobody@127.0.0.1:1/none" // never reached: input is checked first
	cases := []struct {
		name     string
		args     []string
		mentions []string
	}{
		{"zero warehouses", []string{"tpcc", "load", "--warehouses", "0"}, []string{"warehouses"}},
		{"negative partitions", []string{"tpcc", "load", "--partitions", "-1"}, []string{"partitions"}},
		{"fillfactor of unknown table", []string{"tpcc", "load", "--fillfactor", "stok=90"}, []string{"stok"}},
		{"fillfactor out of range", []string{"tpcc", "load", "--fillfactor", "stock=5"}, []string{"stock", "5"}},
		{"warehouses beyond int4", []string{"tpcc", "load", "--warehouses", "99999999999"}, []string{"warehouses", "99999999999"}},
		{"warehouses not a number", []string{"tpcc", "load", "--warehouses", "ten"}, []string{"ten"}},
		{"bad --fresh", []string{"tpcc", "check", "--fresh", "maybe"}, []string{"--fresh"}},
		{"unknown check", []string{"tpcc", "check", "--only", "condition_99"}, []string{"condition_99"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--dsn", dsn}, tc.args...)
			assertOneLineProblem(t, runPgoltp(t, time.Minute, args...), tc.mentions...)
		})
	}
}

func TestTpccCheckNotLoaded(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", dsn, "tpcc", "check"), "tpcc load")
}

// TestTpccLoadAndCheck loads one warehouse with the binary, checks it, loads
// again (nothing to do), breaks a condition and expects check to exit 1 naming it.
func TestTpccLoadAndCheck(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "--json", "tpcc", "load", "--warehouses", "1", "--seed", "9", "--schema", "bench")
	if r.code != 0 {
		t.Fatalf("load: exit %d: %s", r.code, r.stderr)
	}
	var st struct {
		Warehouses int              `json:"warehouses"`
		Seed       uint64           `json:"seed"`
		Rows       map[string]int64 `json:"rows"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("load --json: %v: %s", err, r.stdout)
	}
	if st.Warehouses != 1 || st.Seed != 9 || st.Rows["customer"] != 30_000 || st.Rows["stock"] != 100_000 {
		t.Errorf("load stats %+v", st)
	}

	r = runPgoltp(t, time.Minute, "--dsn", dsn, "tpcc", "load", "--warehouses", "1", "--schema", "bench")
	if r.code != 0 || !strings.Contains(r.stdout, "already loaded") {
		t.Errorf("second load: exit %d, stdout %q, stderr %q; want 'already loaded'", r.code, r.stdout, r.stderr)
	}
	r = runPgoltp(t, time.Minute, "--dsn", dsn, "tpcc", "load", "--warehouses", "2", "--schema", "bench")
	assertOneLineProblem(t, r, "--force")

	r = runPgoltp(t, 2*time.Minute, "--dsn", dsn, "tpcc", "check", "--schema", "bench")
	if r.code != 0 {
		t.Fatalf("check of a fresh load: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"PASS condition_1 ", "PASS condition_11 ", "PASS condition_12 ", "PASS cardinality "} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
			t.Errorf("check output lacks %q:\n%s", want, r.stdout)
		}
	}

	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `UPDATE bench.district SET d_ytd = d_ytd + 5 WHERE d_w_id = 1 AND d_id = 3`); err != nil {
		t.Fatal(err)
	}
	r = runPgoltp(t, 2*time.Minute, "--dsn", dsn, "--json", "tpcc", "check", "--schema", "bench", "--quick")
	if r.code != 1 {
		t.Fatalf("check of a broken database: exit %d, want 1\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "condition_1") || !strings.Contains(r.stderr, "condition_9") {
		t.Errorf("stderr should name the failed checks: %q", r.stderr)
	}
	var rep struct {
		Passed  bool `json:"passed"`
		Results []struct {
			Name       string     `json:"name"`
			Status     string     `json:"status"`
			Violations int64      `json:"violations"`
			Rows       [][]string `json:"rows"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("check --json: %v: %s", err, r.stdout)
	}
	status := map[string]string{}
	for _, res := range rep.Results {
		status[res.Name] = res.Status
		if res.Name == "condition_9" && (res.Violations != 1 || len(res.Rows) != 1 || res.Rows[0][1] != "3") {
			t.Errorf("condition_9 should show the one broken district 3: %+v", res)
		}
	}
	if rep.Passed || status["condition_1"] != "FAIL" || status["condition_9"] != "FAIL" ||
		status["condition_8"] != "PASS" || status["condition_10"] != "SKIP" {
		t.Errorf("statuses after breaking d_ytd with --quick: %v", status)
	}
}

// TestTpccLoadInterrupt sends SIGINT while the loader streams: it exits 1 with
// one line saying the load is incomplete; check refuses the half-load; the next
// load notices it and rebuilds, after which check passes.
func TestTpccLoadInterrupt(t *testing.T) {
	t.Parallel()
	conn, dsn := pgtest.Conn(t)
	ctx := context.Background()

	cmd := exec.Command(pgoltpBinary(t), "--dsn", dsn, "tpcc", "load", "--warehouses", "4")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var copying bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'COPY %')`).Scan(&copying); err != nil {
			t.Fatal(err)
		}
		if copying {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the load never started copying")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("did not stop within a minute of SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("interrupted load: exit %d, want 1; stderr %q", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "interrupted") || !strings.Contains(last, "tpcc load") {
		t.Errorf("last stderr line %q should say the load was interrupted and how to recover", last)
	}

	r := runPgoltp(t, time.Minute, "--dsn", dsn, "tpcc", "check")
	if r.code != 1 || !strings.Contains(r.stderr, "incomplete") {
		t.Errorf("check of a half-load: exit %d, stderr %q; want 1 and 'incomplete'", r.code, r.stderr)
	}
	r = runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcc", "load", "--warehouses", "1")
	if r.code != 0 || !strings.Contains(r.stdout, "replaced") {
		t.Fatalf("reload: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runPgoltp(t, 2*time.Minute, "--dsn", dsn, "tpcc", "check"); r.code != 0 {
		t.Errorf("check after reload: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
