package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// benchmarkSQLRole creates a login role with a password and a database it
// owns, and returns the JDBC URL of that database and the role's name.
func benchmarkSQLRole(t *testing.T, password string) (jdbc, role string) {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgtest.AdminDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	role = fmt.Sprintf("bmsql_%d", time.Now().UnixNano()%1e9)
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", role, password)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the database's own cleanup has dropped it
		if c, err := pgx.Connect(ctx, pgtest.AdminDSN(t)); err == nil {
			_, _ = c.Exec(ctx, "DROP ROLE IF EXISTS "+role)
			_ = c.Close(ctx)
		}
	})
	cfg, err := pgx.ParseConfig(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s OWNER TO %s", pgx.Identifier{cfg.Database}.Sanitize(), role)); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/%s?ApplicationName=bmsql", cfg.Port, cfg.Database), role
}

// A BenchmarkSQL properties file drives 'tpcc load' and 'tpcc run' as their
// flags: the connection (with the file's password, which is never printed
// or stored), the scale, the terminals, the stop rule and the weights; a
// flag on the command line wins over the file.
func TestTpccBenchmarkSQLProps(t *testing.T) {
	t.Parallel()
	const password = "Pr0ps-s3cret-xyzzy"
	jdbc, role := benchmarkSQLRole(t, password)
	props := filepath.Join(t.TempDir(), "props.pg")
	file := "db=postgres\ndriver=org.postgresql.Driver\nconn=" + jdbc + "\nuser=" + role + "\npassword=" + password + "\n" +
		"warehouses=1\nloadWorkers=2\nterminals=3\n//To run for specified minutes- runTxnsPerTerminal must equal zero\n" +
		"runTxnsPerTerminal=20\nrunMins=0\nlimitTxnsPerMin=0\nterminalWarehouseFixed=true\n" +
		"newOrderWeight=44.9\npaymentWeight=43.1\norderStatusWeight=4\ndeliveryWeight=4\nstockLevelWeight=4\n" +
		"resultDirectory=my_result_%tY-%tm-%td_%tH%tM%tS\nosCollectorScript=./misc/os_collector_linux.py\n"
	if err := os.WriteFile(props, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	lab := labDir(t)
	load := runPgoltp(t, 5*time.Minute, "--lab", lab, "tpcc", "load", "--props", props)
	if load.code != 0 {
		t.Fatalf("load --props: exit %d: %s", load.code, load.stderr)
	}
	run := runPgoltp(t, 5*time.Minute, "--lab", lab, "--json", "tpcc", "run", "--props", props, "--terminals", "2", "--progress", "0")
	if run.code != 0 {
		t.Fatalf("run --props: exit %d: %s", run.code, run.stderr)
	}
	for _, want := range []string{"--weights 449,431,40,40,40", "--txns-per-terminal 20", "not used: --terminals is on the command line",
		"not used: resultDirectory", "loadWorkers: used by 'tpcc load'", "never shown"} {
		if !strings.Contains(run.stderr, want) {
			t.Errorf("the mapping printed by run does not say %q:\n%s", want, run.stderr)
		}
	}
	var res struct {
		Txns []struct {
			Count int64 `json:"count"`
		} `json:"txns"`
	}
	if err := json.Unmarshal([]byte(run.stdout), &res); err != nil {
		t.Fatalf("--json output: %v\n%s", err, run.stdout)
	}
	var total int64
	for _, x := range res.Txns[:5] {
		total += x.Count
	}
	if total != 2*20 {
		t.Errorf("%d transactions, want 40 (2 terminals from the command line × runTxnsPerTerminal 20)", total)
	}
	for _, out := range []string{load.stdout, load.stderr, run.stdout, run.stderr} {
		if strings.Contains(out, password) {
			t.Fatalf("the password was printed: %s", out)
		}
	}
	assertNotInFiles(t, lab, password)
}

// assertNotInFiles fails when any file under dir holds s.
func assertNotInFiles(t *testing.T, dir, s string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), s) {
			t.Errorf("%s holds the password", path)
		}
		return nil
	})
}

func TestTpccBenchmarkSQLPropsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ name, file, mention string }{
		{"oracle", "db=oracle\n", "db=oracle"},
		{"weights", "newOrderWeight=50\npaymentWeight=43\norderStatusWeight=4\ndeliveryWeight=4\nstockLevelWeight=4\n", "add up to 105"},
		{"both stop rules", "runMins=5\nrunTxnsPerTerminal=10\n", "give one of the two"},
		{"not jdbc", "conn=postgres://h/db\n", "not a PostgreSQL JDBC URL"},
		{"stored procedures of oracle", "application=OracleStoredProc\n", "application=OracleStoredProc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".props")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			r := runPgoltp(t, time.Minute, "--dsn", "postgres://nobody@127.0.0.1:1/none", "tpcc", "run", "--props", path)
			assertOneLineProblem(t, r, "--props", tc.mention)
		})
	}
	r := runPgoltp(t, time.Minute, "tpcc", "load", "--props", filepath.Join(dir, "missing.props"))
	assertOneLineProblem(t, r, "--props", "missing.props")
}
