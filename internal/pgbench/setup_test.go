package pgbench

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestSetupFailsAsPgbench: a run against a database without pgbench's
// tables, or against a database that does not exist, fails before it starts
// with pgbench's messages and exit code 1 (001_pgbench_with_server.pl's
// "run without init" and "no such database").
func TestSetupFailsAsPgbench(t *testing.T) {
	bin := pgtest.Pgbench(t)
	dsn := pgtest.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	missing := strings.Replace(dsn, cfg.Database, "no-such-database", 1)
	for _, args := range [][]string{{"-S", "-t", "1", dsn}, {"-t", "1", missing}} {
		cmd := exec.Command(bin, args...)
		var want bytes.Buffer
		cmd.Stderr = &want
		_ = cmd.Run()
		var got bytes.Buffer
		code := Main(context.Background(), args, Env{Stdout: &got, Stderr: &got, Getenv: func(string) string { return "" }})
		if code != 1 || cmd.ProcessState.ExitCode() != 1 || got.String() != want.String() {
			t.Errorf("pgbench %s: exit %d, stderr\n%s\nwant exit %d\n%s", args[:len(args)-1], code, got.String(), cmd.ProcessState.ExitCode(), want.String())
		}
	}
}
