package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// Freshness says whether the load-only checks (condition 11) apply.
type Freshness int

const (
	FreshAuto Freshness = iota // decide from the data: no order placed, delivered or paid since the load
	FreshYes                   // the database is freshly loaded: run them
	FreshNo                    // a run happened: skip them
)

// CheckOptions select and shape the checks.
type CheckOptions struct {
	Schema string // "" = public
	// Schemas checks each of several schemas in turn (Schema must be
	// empty); the report holds each one's and, in Results, all of them.
	Schemas []string
	Quick   bool // skip the expensive per-customer checks
	Fresh   Freshness
	Workers int // parallel connections sharing one snapshot; 0 = number of CPUs
	MaxRows int // violating rows kept per check; 0 = 5
	// Only, when not empty, runs just the checks with these names.
	Only []string
}

// Check outcomes.
const (
	StatusPass = "PASS"
	StatusFail = "FAIL"
	StatusSkip = "SKIP"
)

// CheckResult is the outcome of one named check.
type CheckResult struct {
	Name       string        `json:"name"`
	Clause     string        `json:"clause"`
	Title      string        `json:"title"`
	Status     string        `json:"status"`
	Violations int64         `json:"violations"`     // rows that break the rule
	Columns    []string      `json:"columns"`        // of Rows
	Rows       [][]string    `json:"rows,omitempty"` // the first few violating rows, as text
	SkipReason string        `json:"skip_reason,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
}

// CheckReport is the outcome of a whole check: every check ran in one
// REPEATABLE READ snapshot.
type CheckReport struct {
	Schema     string        `json:"schema"`
	Warehouses int           `json:"warehouses"`
	Fresh      bool          `json:"fresh"` // load-only checks ran
	Passed     bool          `json:"passed"`
	Results    []CheckResult `json:"results"`
	Duration   time.Duration `json:"duration_ns"`
	// Schemas holds each schema's report when several were checked; Results
	// then holds all their results, named "condition_1[tpcc2]".
	Schemas []CheckReport `json:"schemas,omitempty"`
}

// Failed returns the results that failed.
func (r CheckReport) Failed() []CheckResult {
	var out []CheckResult
	for _, c := range r.Results {
		if c.Status == StatusFail {
			out = append(out, c)
		}
	}
	return out
}

// checkPiece is one query execution: a check over a warehouse range.
type checkPiece struct {
	check  int // index into the selected checks
	lo, hi int
}

// Check verifies the consistency conditions of clause 3.3.2 and the other
// named checks on the database at dsn. All queries see the same snapshot: the
// first connection exports it, the others import it. A failed check is not an
// error: look at CheckReport.Passed.
func Check(ctx context.Context, dsn string, opts CheckOptions) (CheckReport, error) {
	if len(opts.Schemas) > 0 {
		return checkSchemas(ctx, dsn, opts)
	}
	start := time.Now()
	opts, err := opts.withDefaults()
	if err != nil {
		return CheckReport{}, err
	}
	pathDSN, err := WithSearchPath(dsn, opts.Schema)
	if err != nil {
		return CheckReport{}, err
	}
	conns, err := openSnapshotConns(ctx, pathDSN, opts.Workers)
	if err != nil {
		return CheckReport{}, err
	}
	defer func() {
		for _, c := range conns {
			_ = c.Close(context.WithoutCancel(ctx))
		}
	}()
	rep := CheckReport{Schema: opts.Schema}
	maxW, err := readCheckTarget(ctx, conns[0], opts, &rep)
	if err != nil {
		return rep, err
	}
	selected, pieces := planChecks(opts, maxW, &rep)
	if err := runChecks(ctx, conns, selected, pieces, opts.MaxRows, &rep); err != nil {
		return rep, err
	}
	rep.Passed = true
	for _, r := range rep.Results {
		if r.Status == StatusFail {
			rep.Passed = false
		}
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// withDefaults fills in the options left zero and refuses unknown check names.
func (opts CheckOptions) withDefaults() (CheckOptions, error) {
	if opts.Schema == "" {
		opts.Schema = DefaultSchema
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.MaxRows <= 0 {
		opts.MaxRows = 5
	}
	for _, n := range opts.Only {
		if !checkExists(n) {
			return opts, fmt.Errorf("unknown check %q (checks: %s)", n, strings.Join(CheckNames(), ", "))
		}
	}
	return opts, nil
}

// readCheckTarget reads, in the snapshot of first, whether the schema was
// completely loaded, its warehouses (into rep; the highest w_id is returned)
// and whether it looks freshly loaded.
func readCheckTarget(ctx context.Context, first *pgx.Conn, opts CheckOptions, rep *CheckReport) (int, error) {
	// A missing pgoltp_meta must not abort the snapshot's transaction.
	if _, err := first.Exec(ctx, "SAVEPOINT pgoltp_meta"); err != nil {
		return 0, err
	}
	meta, err := ReadMeta(ctx, first)
	switch {
	case errors.Is(err, ErrNotLoaded):
		// Not loaded by pgoltp (another tool's TPC-C database): check it anyway.
		if _, err := first.Exec(ctx, "ROLLBACK TO SAVEPOINT pgoltp_meta"); err != nil {
			return 0, err
		}
	case err != nil:
		return 0, err
	case !meta.Complete:
		return 0, fmt.Errorf("%w (schema %s, interrupted while loading); run 'pgoltp tpcc load' again", ErrNotComplete, opts.Schema)
	}
	var maxW int
	if err := first.QueryRow(ctx, "SELECT count(*), coalesce(max(w_id), 0) FROM warehouse").Scan(&rep.Warehouses, &maxW); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
			return 0, fmt.Errorf("%w in schema %s", ErrNotLoaded, opts.Schema)
		}
		return 0, fmt.Errorf("reading warehouses: %w", err)
	}
	switch opts.Fresh {
	case FreshYes:
		rep.Fresh = true
	case FreshAuto:
		rep.Fresh, err = looksFresh(ctx, first, rep.Warehouses)
		if err != nil {
			return 0, err
		}
	}
	return maxW, nil
}

// planChecks selects the checks opts asks for (filling rep.Results, skipped
// ones marked) and cuts the per-warehouse ones into ranges so that the
// expensive ones spread over the workers.
func planChecks(opts CheckOptions, maxW int, rep *CheckReport) ([]consistencyCheck, []checkPiece) {
	var selected []consistencyCheck
	for _, c := range consistencyChecks {
		if len(opts.Only) > 0 && !containsName(opts.Only, c.name) {
			continue
		}
		selected = append(selected, c)
	}
	rep.Results = make([]CheckResult, len(selected))
	var pieces []checkPiece
	for i, c := range selected {
		rep.Results[i] = CheckResult{Name: c.name, Clause: c.clause, Title: c.title, Status: StatusPass}
		switch {
		case c.expensive && opts.Quick:
			rep.Results[i].Status, rep.Results[i].SkipReason = StatusSkip, "expensive; skipped by --quick"
			continue
		case c.loadOnly && !rep.Fresh:
			rep.Results[i].Status, rep.Results[i].SkipReason = StatusSkip, "holds only on a freshly loaded database"
			continue
		}
		chunks := 1
		if c.perWarehouse && c.expensive {
			chunks = min(opts.Workers, max(maxW, 1))
		}
		for k := range chunks {
			lo := 1 + k*maxW/chunks
			hi := (k + 1) * maxW / chunks
			if k == 0 {
				lo = math.MinInt32 // also catch rows with w_id ≤ 0
			}
			if k == chunks-1 {
				hi = math.MaxInt32 // and beyond the last warehouse
			}
			pieces = append(pieces, checkPiece{check: i, lo: lo, hi: hi})
		}
	}
	// Expensive pieces first so that the cheap ones fill in at the end.
	ordered := make([]checkPiece, 0, len(pieces))
	for _, p := range pieces {
		if selected[p.check].expensive {
			ordered = append(ordered, p)
		}
	}
	for _, p := range pieces {
		if !selected[p.check].expensive {
			ordered = append(ordered, p)
		}
	}
	return selected, ordered
}

// runChecks runs the pieces over the snapshot connections and adds what they
// find to rep.Results.
func runChecks(ctx context.Context, conns []*pgx.Conn, selected []consistencyCheck, pieces []checkPiece, maxRows int, rep *CheckReport) error {
	var mu sync.Mutex
	return runParallel(ctx, conns, len(pieces), func(ctx context.Context, conn *pgx.Conn, i int) error {
		p := pieces[i]
		t0 := time.Now()
		cols, rows, n, err := runCheckQuery(ctx, conn, selected[p.check], p.lo, p.hi, maxRows)
		if err != nil {
			return fmt.Errorf("check %s: %w", selected[p.check].name, err)
		}
		mu.Lock()
		defer mu.Unlock()
		r := &rep.Results[p.check]
		r.Duration += time.Since(t0)
		r.Columns = cols
		r.Violations += n
		for _, row := range rows {
			if len(r.Rows) < maxRows {
				r.Rows = append(r.Rows, row)
			}
		}
		if r.Violations > 0 {
			r.Status = StatusFail
		}
		return nil
	})
}

// runCheckQuery runs one check over warehouses lo..hi and returns the column
// names, the first maxRows violating rows as text, and how many there are.
func runCheckQuery(ctx context.Context, conn *pgx.Conn, c consistencyCheck, lo, hi, maxRows int) ([]string, [][]string, int64, error) {
	sql := "SELECT count(*) OVER () AS pgoltp_violations, v.* FROM (" + c.query + ") v LIMIT " + fmt.Sprint(maxRows)
	args := []any{pgx.QueryResultFormats{pgx.TextFormatCode}}
	if c.perWarehouse {
		args = append(args, lo, hi)
	}
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, nil, 0, err
	}
	defer rows.Close()
	fds := rows.FieldDescriptions()
	cols := make([]string, 0, len(fds))
	for _, fd := range fds[1:] {
		cols = append(cols, fd.Name)
	}
	var out [][]string
	var total int64
	for rows.Next() {
		raw := rows.RawValues()
		if _, err := fmt.Sscan(string(raw[0]), &total); err != nil {
			return nil, nil, 0, err
		}
		row := make([]string, len(raw)-1)
		for i, v := range raw[1:] {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(v)
			}
		}
		out = append(out, row)
	}
	return cols, out, total, rows.Err()
}

// openSnapshotConns opens n connections in REPEATABLE READ READ ONLY
// transactions that share the first one's snapshot.
func openSnapshotConns(ctx context.Context, dsn string, n int) ([]*pgx.Conn, error) {
	var conns []*pgx.Conn
	fail := func(err error) ([]*pgx.Conn, error) {
		for _, c := range conns {
			_ = c.Close(ctx)
		}
		return nil, err
	}
	var snapshot string
	for i := range n {
		c, err := adminconn.Connect(ctx, dsn)
		if err != nil {
			return fail(fmt.Errorf("connecting: %w", err))
		}
		conns = append(conns, c)
		if _, err := c.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
			return fail(err)
		}
		if i == 0 {
			if err := c.QueryRow(ctx, "SELECT pg_export_snapshot()").Scan(&snapshot); err != nil {
				return fail(fmt.Errorf("exporting the snapshot: %w", err))
			}
			continue
		}
		if _, err := c.Exec(ctx, "SET TRANSACTION SNAPSHOT "+quoteLiteral(snapshot)); err != nil {
			return fail(fmt.Errorf("importing the snapshot: %w", err))
		}
	}
	return conns, nil
}

// looksFresh reports whether the database is as the load left it (clause
// 4.3.3.1), so that condition 11 applies: every district still expects order
// 3,001 (no New-Order) and has its 900 new_order rows (no Delivery), and
// history has one row per customer (no Payment).
func looksFresh(ctx context.Context, conn *pgx.Conn, warehouses int) (bool, error) {
	var untouched bool
	var history int64
	err := conn.QueryRow(ctx, `SELECT coalesce(bool_and(d.d_next_o_id = 3001 AND coalesce(n.new_orders, 0) = 900), false),
			(SELECT count(*) FROM history)
		FROM district d
		LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS new_orders FROM new_order GROUP BY 1, 2) n
			ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id`).
		Scan(&untouched, &history)
	if err != nil {
		return false, fmt.Errorf("deciding whether the database is freshly loaded: %w", err)
	}
	return untouched && history == int64(warehouses)*DistrictsPerWH*CustomersPerDistrict, nil
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func checkExists(name string) bool { return containsName(CheckNames(), name) }

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
