package tpcb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// A load marks itself unfinished with a comment on pgbench_branches, set
// right after the tables are created and removed as the load's very last
// statement. The mark lives on the table itself, so it goes when anything
// drops the tables: a later `pgbench -i` (which never sets a comment) or
// load leaves no stale mark behind, and tables made by pgbench, or by a
// pgoltp that predates the mark, run as they always did.
const loadingComment = "pgoltp tpcb load in progress: an interrupted load leaves this; load again"

var (
	markLoadingSQL  = "comment on table " + TableBranches + " is '" + loadingComment + "'"
	markCompleteSQL = "comment on table " + TableBranches + " is null"
)

// ErrIncompleteLoad says the pgbench tables hold a pgoltp load that was
// interrupted (killed, cancelled, failed) before its end.
// Its text names the fix: callers other than the tpcb commands show it as is.
var ErrIncompleteLoad = errors.New("the pgbench tables hold an interrupted load: load again with 'pgoltp tpcb load --scale N' (or pgbench -i)")

// readScale reads the scale from pgbench_branches, as pgbench does, in the
// same statement as the load's mark: ErrIncompleteLoad while it is there,
// ErrNotLoaded without tables or rows.
func readScale(ctx context.Context, conn *pgx.Conn) (int, error) {
	var n int
	var comment *string
	err := conn.QueryRow(ctx, "select (select count(*) from "+TableBranches+"), obj_description('"+TableBranches+"'::regclass, 'pg_class')").
		Scan(&n, &comment)
	switch {
	case err != nil && notLoaded(err) == ErrNotLoaded:
		return 0, ErrNotLoaded
	case err != nil:
		return 0, fmt.Errorf("reading the scale: %w", err)
	case comment != nil && *comment == loadingComment:
		return 0, ErrIncompleteLoad
	case n == 0:
		return 0, ErrNotLoaded
	}
	return n, nil
}
