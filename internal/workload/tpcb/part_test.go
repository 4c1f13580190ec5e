package tpcb

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// TestPartScriptDrawsItsBranches: a part's script draws each
// transaction's branch from its own range, and accounts and tellers from
// the whole database, as the whole run's (pgbench's own \set lines) does.
func TestPartScriptDrawsItsBranches(t *testing.T) {
	def, _ := ScriptTPCB.def()
	part := def.script(space{scale: 10, bidFirst: 4, bidCount: 3})
	whole := def.script(wholeSpace(10))
	for _, want := range []string{`\set bid random(4, 6)`, `\set aid random(1, 100000 * :scale)`, `\set tid random(1, 10 * :scale)`} {
		if !strings.Contains(part, want+"\n") {
			t.Errorf("part's script lacks %q:\n%s", want, part)
		}
	}
	if !strings.Contains(whole, `\set bid random(1, 1 * :scale)`+"\n") || strings.Count(whole, "\n") != 4+len(def.stmts) {
		t.Errorf("whole run's script:\n%s", whole)
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
