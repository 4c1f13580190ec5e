package crashaudit_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/crashaudit"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// losesRows is the real cluster, except that after the crash it deletes the
// oldest acknowledged ledger rows behind the audit's back: a real loss the
// audit must find, whatever the settings.
type losesRows struct {
	crashaudit.Crasher
	dsn     string
	deleted []int64
}

func (l *losesRows) Start(ctx context.Context) error {
	if err := l.Crasher.Start(ctx); err != nil || l.deleted != nil {
		return err // only the restart after the crash loses rows
	}
	conn, err := pgx.Connect(ctx, l.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	// The five oldest entries were committed (and acknowledged) seconds
	// before the kill, long before anything was in flight.
	rows, err := conn.Query(ctx, "DELETE FROM ledger_entry WHERE id IN (SELECT id FROM ledger_entry ORDER BY id LIMIT 5) RETURNING id")
	if err != nil {
		return err
	}
	l.deleted, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	return err
}

// TestCrashAuditReportsARealLoss: the audit reports exactly the acknowledged
// rows that are gone, by id, and says LOST.
func TestCrashAuditReportsARealLoss(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	server := &losesRows{Crasher: pgtest.Cluster(t), dsn: dsn}
	a := &crashaudit.CrashAudit{Server: server, DSN: dsn, Settings: map[string]string{"synchronous_commit": "on"},
		Workload: ledger.Ledger{Clients: 2, Accounts: 1000}, KillAfter: 3 * time.Second}
	rep, err := a.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(server.deleted) != 5 || rep.Acknowledged < 5 {
		t.Fatalf("setup: deleted %v with %d acknowledged", server.deleted, rep.Acknowledged)
	}
	slices.Sort(server.deleted)
	if rep.Missing != 5 || !slices.Equal(rep.MissingIDs, server.deleted) || !strings.Contains(rep.Verdict, "5 of") || !strings.Contains(rep.Verdict, "LOST") {
		t.Errorf("the audit did not report the 5 deleted rows %v: missing %d %v, verdict %q", server.deleted, rep.Missing, rep.MissingIDs, rep.Verdict)
	}
}
