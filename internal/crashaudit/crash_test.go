package crashaudit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/crashaudit"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// TestCrashSynchronousCommitOnLosesNothing kills the server mid-run with
// synchronous_commit=on and proves every acknowledged commit survived.
func TestCrashSynchronousCommitOnLosesNothing(t *testing.T) {
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	a := &crashaudit.CrashAudit{Server: c, DSN: dsn, Settings: map[string]string{"synchronous_commit": "on"},
		Workload: ledger.Ledger{Clients: 4, Accounts: 1000}, KillAfter: 3 * time.Second}
	rep, err := a.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Acknowledged < 10 {
		t.Fatalf("only %d commits acknowledged before the crash", rep.Acknowledged)
	}
	if rep.Missing != 0 {
		t.Fatalf("%d acknowledged commits lost with synchronous_commit=on: %v", rep.Missing, rep.MissingIDs)
	}
	if !rep.Restored || rep.Recovery <= 0 || len(rep.Unsafe) != 0 || !strings.HasPrefix(rep.Verdict, "no acknowledged commit lost") {
		t.Errorf("report: %+v", rep)
	}
}

// TestCrashSynchronousCommitOffIsLabelled runs the audit of an unsafe setting:
// it must run only with AllowUnsafe and label the report. Whether commits are
// lost depends on timing, so the count is reported, not asserted.
func TestCrashSynchronousCommitOffIsLabelled(t *testing.T) {
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	a := &crashaudit.CrashAudit{Server: c, DSN: dsn, Settings: map[string]string{"synchronous_commit": "off"}, AllowUnsafe: true,
		Workload: ledger.Ledger{Clients: 4, Accounts: 1000}, KillAfter: 2 * time.Second}
	rep, err := a.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = rep.WriteText(&text)
	t.Log("\n" + text.String())
	if rep.Acknowledged == 0 || rep.Missing < 0 || rep.Missing > rep.Acknowledged || !rep.Restored {
		t.Errorf("report: %+v", rep)
	}
	if len(rep.Unsafe) != 1 || !strings.Contains(text.String(), "[UNSAFE: can-lose-data-on-crash]") || !strings.Contains(text.String(), "caveat:") {
		t.Errorf("unsafe setting not labelled:\n%s", text.String())
	}
	if v := readSetting(t, dsn, "synchronous_commit"); v != "on" {
		t.Errorf("synchronous_commit left at %s", v)
	}
}

// TestCrashRefusedSettingsNeverApplied: the crash audit's --set refuses
// network and code settings before anything is applied, even with
// AllowUnsafe.
func TestCrashRefusedSettingsNeverApplied(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a := &crashaudit.CrashAudit{Server: refuseCrash{t}, DSN: dsn, Settings: map[string]string{"archive_command": "cp %p /tmp/x"}, AllowUnsafe: true}
	if _, err := a.Run(context.Background()); problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(err.Error(), "archive_command") {
		t.Errorf("crash audit with archive_command: %v", err)
	}
}

func TestCrashAuditNeedsAllowUnsafe(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a := &crashaudit.CrashAudit{Server: nil, DSN: dsn, Settings: map[string]string{"synchronous_commit": "off"}}
	_, err := a.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "--allow-unsafe") || problem.ExitCode(err) != problem.ExitBadInput {
		t.Fatalf("got %v", err)
	}
}

// refuseCrash fails the test if the audit applies, kills or starts anything.
type refuseCrash struct{ t *testing.T }

func (r refuseCrash) Apply(context.Context, map[string]string) (bool, error) {
	r.t.Error("Apply called for settings that should have been rejected")
	return false, nil
}

func (r refuseCrash) Kill() error {
	r.t.Error("Kill called for settings that should have been rejected")
	return nil
}

func (r refuseCrash) Start(context.Context) error {
	r.t.Error("Start called for settings that should have been rejected")
	return nil
}

// readSetting reads one setting's value from pg_settings.
func readSetting(t *testing.T, dsn, name string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	live, _, err := settings.ReadServer(ctx, conn, name)
	if err != nil {
		t.Fatal(err)
	}
	return live[name].Value()
}
