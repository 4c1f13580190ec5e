package crashaudit_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/crashaudit"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// promotedIDs is the real cluster, which also reads the ledger's ids on the
// promoted standby the moment it takes writes, before any client reaches it.
type promotedIDs struct {
	*cluster.Cluster
	ids map[int64]bool
}

func (p *promotedIDs) PromoteMostAdvanced(ctx context.Context, db string) (string, string, error) {
	name, dsn, err := p.Cluster.PromoteMostAdvanced(ctx, db)
	if err == nil {
		p.ids, err = ledgerIDSet(ctx, dsn)
	}
	return name, dsn, err
}

func ledgerIDSet(ctx context.Context, dsn string) (map[int64]bool, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT id FROM ledger_entry")
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	set := make(map[int64]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set, err
}

// TestFailoverAsynchronousLossIsCounted: with asynchronous replication the
// audit's count of lost acknowledged commits is the database's own. After
// the audit the old primary is the lab's primary again, holding every
// commit it acknowledged; the rows it has and the promoted standby lacked
// are the lost ones plus at most one in flight per client. A network cut
// loses some: the old primary acknowledges commits until it is fenced
// (issue 31).
func TestFailoverAsynchronousLossIsCounted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := primaryAndStandby(t, ctx)
	const clients = 4
	for _, kill := range []string{crashaudit.KillPrimary, crashaudit.KillNetwork} {
		t.Run(kill, func(t *testing.T) {
			p := &promotedIDs{Cluster: c}
			a := &crashaudit.FailoverAudit{Cluster: p, Kill: kill, Database: "pgoltp",
				Workload: ledger.Ledger{Clients: clients, Accounts: 1000}, KillAfter: 3 * time.Second}
			rep, err := a.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			old, err := ledgerIDSet(ctx, c.DSN("pgoltp"))
			if err != nil {
				t.Fatal(err)
			}
			missing := 0 // on the old primary, not on the promoted standby
			for id := range old {
				if !p.ids[id] {
					missing++
				}
			}
			for _, id := range rep.LostIDs {
				if p.ids[id] || !old[id] {
					t.Errorf("lost id %d: on the promoted standby %v, on the old primary %v", id, p.ids[id], old[id])
				}
			}
			if int64(missing) < rep.Lost || int64(missing) > rep.Lost+clients || rep.Acknowledged-rep.Lost+rep.InDoubt != int64(len(p.ids)) {
				t.Errorf("lost %d, in doubt %d of %d acknowledged; the databases: %d rows only on the old primary, %d on the promoted standby",
					rep.Lost, rep.InDoubt, rep.Acknowledged, missing, len(p.ids))
			}
			t.Logf("%s: %d acknowledged, %d lost, %d in doubt; %d only on the old primary", kill, rep.Acknowledged, rep.Lost, rep.InDoubt, missing)
			if kill == crashaudit.KillNetwork && rep.Lost == 0 {
				t.Errorf("a network cut with asynchronous replication lost nothing: %+v", rep)
			}
			if rep.Failure() != nil || !rep.Rebuilt || rep.Acknowledged < 10 {
				t.Errorf("report %+v, failure %v", rep, rep.Failure())
			}
		})
	}
}
