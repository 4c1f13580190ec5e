package e2e_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/cluster"
)

// TestReadsBadInput: --reads and --read-dsn that cannot work are one line,
// exit 2, before any server is touched (issue 31).
func TestReadsBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"tpcb", "run", "-S", "--reads", "sideways"}, []string{"--reads sideways"}},
		{[]string{"tpcb", "run", "-S", "--reads", "standby", "--read-dsn", "host=/nonexistent"}, []string{"--reads standby and --read-dsn"}},
		{[]string{"--dsn", "host=/nonexistent", "tpcb", "run", "-S", "--reads", "standby"}, []string{"--reads standby", "--dsn"}},
		{[]string{"tpcb", "run", "--read-dsn", "host=/nonexistent"}, []string{"--read-dsn", "no read-only work", "select-only"}},
		{[]string{"tpcc", "run", "--read-dsn", "host=/nonexistent", "--weights", "50,50,0,10,0"}, []string{"--read-dsn", "no read-only work", "--weights"}},
	} {
		assertOneLineProblem(t, runPgoltp(t, time.Minute, c.args...), c.want...)
	}
}

// TestReadsOnStandby runs the read-only work of TPC-B and TPC-C on a
// standby of the lab's primary (issue 31): no standby yet, or a primary as
// --read-dsn, is refused; a select-only run's transactions are the
// standby's (its own pg_stat_database says so); a TPC-C run through the
// lab's pgbouncer with its reads on the synchronous standby is labelled
// NON-COMPLIANT in its summary and stored report, passes its check on the
// primary, and on the standby once it has replayed the primary's WAL.
func TestReadsOnStandby(t *testing.T) {
	t.Parallel()
	lab, pg, ok := tpcbLab(t)
	assertOneLineProblem(t, pg(time.Minute, "tpcb", "run", "-S", "-t", "5", "--reads", "standby"), "--reads standby", "no standbys", "--standbys 1")
	c, err := cluster.Open(lab)
	if err != nil {
		t.Fatal(err)
	}
	assertOneLineProblem(t, pg(time.Minute, "tpcb", "run", "-S", "-t", "5", "--read-dsn", c.DSN("pgoltp")), "--read-dsn is a primary")

	ok(pg(5*time.Minute, "cluster", "up", "--standbys", "1", "--sync", "quorum", "--pooler", "pgbouncer"), "cluster up --standbys 1 --pooler pgbouncer")
	if c, err = cluster.Open(lab); err != nil {
		t.Fatal(err)
	}
	standby := c.Nodes()[0].DSN("pgoltp")
	// A standby has no serializable reads; a spec-mode TPC-C run must be
	// allowed to be non-compliant. Both are found before anything is stored.
	assertOneLineProblem(t, pg(time.Minute, "tpcb", "run", "-S", "-t", "5", "--reads", "standby", "--isolation", "serializable"), "--isolation serializable", "standby")
	assertOneLineProblem(t, pg(time.Minute, "tpcc", "run", "--mode", "spec", "--reads", "standby"), "--reads", "--allow-noncompliant", "clause 3.4")
	if r := pg(time.Minute, "runs"); strings.Contains(r.stdout, "failed") {
		t.Errorf("a refused run was stored:\n%s", r.stdout)
	}
	before := standbyCommits(t, standby)
	r := ok(pg(5*time.Minute, "--json", "tpcb", "run", "-S", "-c", "4", "-t", "200", "--reads", "standby"), "tpcb run -S --reads standby")
	var tpcb struct {
		Committed int64      `json:"committed"`
		Split     *splitJSON `json:"read_split"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tpcb); err != nil {
		t.Fatalf("tpcb run --json: %v: %.500s", err, r.stdout)
	}
	if tpcb.Committed != 800 || tpcb.Split == nil || tpcb.Split.node("standby1").Transactions != 800 || tpcb.Split.node("primary").Transactions != 0 {
		t.Fatalf("select-only on the standby: committed %d, split %+v; want 800 all on standby1", tpcb.Committed, tpcb.Split)
	}
	if len(tpcb.Split.Lag) != 1 || tpcb.Split.Lag[0].Samples == 0 || !strings.Contains(tpcb.Split.LagMeasure, "pg_last_wal_replay_lsn") {
		t.Errorf("read lag %+v (%q), want samples of standby1 and the measure named", tpcb.Split.Lag, tpcb.Split.LagMeasure)
	}
	wantStandbyCommits(t, standby, before+800)
	// --read-dsn takes a standby of any server given by --dsn.
	r = ok(pg(5*time.Minute, "--dsn", c.DSN("pgoltp"), "--json", "tpcb", "run", "-S", "-c", "2", "-t", "50", "--read-dsn", standby), "tpcb run -S --read-dsn")
	if err := json.Unmarshal([]byte(r.stdout), &tpcb); err != nil {
		t.Fatalf("tpcb run --json: %v: %.500s", err, r.stdout)
	}
	if tpcb.Split == nil || tpcb.Split.node("read-dsn").Transactions != 100 {
		t.Errorf("--read-dsn: split %+v, want 100 on read-dsn", tpcb.Split)
	}

	ok(pg(10*time.Minute, "tpcc", "load", "--warehouses", "1"), "tpcc load")
	for _, path := range []string{"client", "server"} {
		// The writes go through the lab's pgbouncer, the reads to the
		// standby: the deployment issue 31 describes.
		r = ok(pg(5*time.Minute, "--json", "tpcc", "run", "--path", path, "--via", "pooler", "--reads", "standby", "--weights", "10,10,5,1,5", "--txns-per-terminal", "30"), "tpcc run --via pooler --reads standby --path "+path)
		var tpcc struct {
			Split        *splitJSON `json:"read_split"`
			NonCompliant []string   `json:"non_compliant"`
			Check        *struct {
				Passed bool `json:"passed"`
			} `json:"check"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &tpcc); err != nil {
			t.Fatalf("tpcc run --json: %v: %.500s", err, r.stdout)
		}
		if tpcc.Check == nil || !tpcc.Check.Passed {
			t.Errorf("--path %s: the check on the primary did not pass: %.2000s", path, r.stdout)
		}
		if tpcc.Split == nil || tpcc.Split.node("standby1").Transactions == 0 || tpcc.Split.node("primary").Transactions == 0 {
			t.Errorf("--path %s: split %+v, want reads on standby1 and writes on the primary", path, tpcc.Split)
		}
		if !strings.Contains(strings.Join(tpcc.NonCompliant, "\n"), "clause 3.4") {
			t.Errorf("--path %s: departures %q name no clause 3.4", path, tpcc.NonCompliant)
		}
	}
	r = ok(pg(time.Minute, "report", "last", "--format", "json"), "report last")
	if !strings.Contains(r.stdout, "NON-COMPLIANT: Order-Status and Stock-Level read on standbys") || !strings.Contains(r.stdout, "read/write split") {
		t.Errorf("the stored run has no NON-COMPLIANT note or split: %.2000s", r.stdout)
	}
	r = ok(pg(time.Minute, "report", "last", "--format", "html", "-o", "-"), "report last --format html")
	if !strings.Contains(r.stdout, "NON-COMPLIANT") || !strings.Contains(r.stdout, "Isolation Test 7") {
		t.Errorf("the HTML report does not say NON-COMPLIANT with its clause")
	}

	waitReplayed(t, c.DSN("pgoltp"), standby)
	ok(runPgoltp(t, 5*time.Minute, "--dsn", standby, "tpcc", "check"), "tpcc check on the standby")
}

// splitJSON is the read/write split as --json writes it.
type splitJSON struct {
	Nodes []struct {
		Node         string `json:"node"`
		Transactions int64  `json:"transactions"`
	} `json:"nodes"`
	Lag []struct {
		Node    string `json:"node"`
		Samples int64  `json:"samples"`
	} `json:"lag"`
	LagMeasure string `json:"lag_measure"`
}

func (s *splitJSON) node(name string) (n struct {
	Node         string `json:"node"`
	Transactions int64  `json:"transactions"`
}) {
	for _, x := range s.Nodes {
		if x.Node == name {
			return x
		}
	}
	return n
}

// standbyCommits is xact_commit of database pgoltp in the standby's own
// pg_stat_database.
func standbyCommits(t *testing.T, dsn string) int64 {
	t.Helper()
	var n int64
	queryRow(t, dsn, "SELECT xact_commit FROM pg_stat_database WHERE datname = 'pgoltp'", &n)
	return n
}

// wantStandbyCommits waits (statistics reach the view within a second or
// so) until the standby has counted at least want commits.
func wantStandbyCommits(t *testing.T, dsn string, want int64) {
	t.Helper()
	var got int64
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if got = standbyCommits(t, dsn); got >= want {
			return
		}
	}
	t.Errorf("the standby's pg_stat_database counts %d commits in pgoltp, want at least %d", got, want)
}

// waitReplayed waits until the standby has replayed the primary's WAL up to
// its flush position now.
func waitReplayed(t *testing.T, primary, standby string) {
	t.Helper()
	var lsn string
	queryRow(t, primary, "SELECT pg_current_wal_flush_lsn()::text", &lsn)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var done bool
		queryRow(t, standby, "SELECT pg_last_wal_replay_lsn() >= '"+lsn+"'::pg_lsn", &done)
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not replay up to %s in a minute", lsn)
		}
	}
}

func queryRow(t *testing.T, dsn, sql string, dest any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sql).Scan(dest); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
