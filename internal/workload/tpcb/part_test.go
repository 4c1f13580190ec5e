package tpcb

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// TestDrawVarsStaysInThePartsBranches: a part draws each transaction's
// branch uniformly from its own range, and accounts and tellers from all.
func TestDrawVarsStaysInThePartsBranches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sp := space{scale: 10, bidFirst: 4, bidCount: 3}
	var vals [numVars]int64
	var text [numVars][]byte
	seen := map[int64]bool{}
	var maxAid int64
	for range 2000 {
		drawVars(rng, sp, &vals, &text)
		if b := vals[varBid]; b < 4 || b > 6 {
			t.Fatalf("bid %d outside the part's branches 4..6", b)
		}
		seen[vals[varBid]] = true
		maxAid = max(maxAid, vals[varAid])
	}
	if len(seen) != 3 || maxAid <= AccountsPerScale*6 {
		t.Errorf("branches drawn %v, largest aid %d: want all of 4..6, and accounts from the whole database", seen, maxAid)
	}
}

// TestRunPartUpdatesOnlyItsBranches: part 2 of 2 at scale 2 touches branch 2
// only, and skips its own before/after check (the group's last part checks
// the whole database).
func TestRunPartUpdatesOnlyItsBranches(t *testing.T) {
	t.Parallel()
	dsn := pgtestDatabase(t)
	ctx := context.Background()
	if _, err := Load(ctx, dsn, LoadOptions{Scale: 2}); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, dsn, RunOptions{Clients: 2, Transactions: 30, Part: workload.Part{K: 2, N: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed != 60 || res.Check != nil || res.Branches != "2-2" {
		t.Fatalf("committed %d, own check %v, branches %q; want 60, none, 2-2", res.Committed, res.Check, res.Branches)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var other, mine int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FILTER (WHERE bid <> 2), count(*) FILTER (WHERE bid = 2) FROM pgbench_history").Scan(&other, &mine); err != nil {
		t.Fatal(err)
	}
	if other != 0 || mine != 60 {
		t.Errorf("history: %d rows of other branches, %d of branch 2; want 0 and 60", other, mine)
	}
	if _, err := Run(ctx, dsn, RunOptions{Clients: 1, Transactions: 1, Part: workload.Part{K: 1, N: 3}}); err == nil {
		t.Error("3 parts of 2 branches accepted")
	}
}
