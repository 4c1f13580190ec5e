package script

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgbench"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/command"
)

// Workload runs scripts as `pgoltp pgbench` would, in this process.
type Workload struct {
	Options
	// Output gets pgbench's output (its summary, -i's lines); nil: none.
	Output io.Writer
	gate   func(context.Context) error
}

// New is the workload of o with its defaults; Validate checks it.
func New(o Options) *Workload {
	o.defaults()
	return &Workload{Options: o}
}

// Kind implements workload.Workload.
func (w *Workload) Kind() string { return "script" }

// Name says which scripts run: "script hot.sql@5 + select-only, 4 clients, scale 1".
func (w *Workload) Name() string {
	scripts := append(append([]string{}, w.Files...), w.Builtins...)
	if len(scripts) == 0 {
		scripts = []string{"tpcb-like"}
	}
	return fmt.Sprintf("script %s, %d clients, scale %d", strings.Join(scripts, " + "), w.Clients, w.Scale)
}

// Unchecked: a script has no consistency check of pgoltp's.
func (w *Workload) Unchecked() bool { return true }

// UpdatedTables implements workload.UpdatedInPlace: with init pgbench, the
// three tables pgbench -i's -F (fillfactor) applies to, which its built-in
// scripts update in place; with init none, the tables are the user's and
// pgoltp names none.
func (w *Workload) UpdatedTables() []string {
	if w.Init == InitNone {
		return nil
	}
	return []string{"pgbench_accounts", "pgbench_tellers", "pgbench_branches"}
}

// Ready implements workload.Ready: the server answers and, with init
// pgbench, holds pgbench -i's tables (a run of the built-in scripts on an
// empty database would be stored as failed, not refused).
func (w *Workload) Ready(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if w.Init == InitNone {
		return nil
	}
	var branches int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgbench_branches").Scan(&branches); err != nil || branches == 0 {
		return fmt.Errorf("no pgbench tables here (init %s): load them first (pgbench -i, or the plan's load), or use init %s for a schema of your own", InitPgbench, InitNone)
	}
	return nil
}

// Check implements workload.Workload: nothing to check.
func (w *Workload) Check(context.Context, string) (*workload.Check, error) { return nil, nil }

// SetStartGate implements workload.Gated: the gate is passed just before
// pgbench connects its clients.
func (w *Workload) SetStartGate(gate func(context.Context) error) { w.gate = gate }

// LayoutOptions implements workload.LayoutOptions: pgbench -i's -F.
func (w *Workload) LayoutOptions() []string { return []string{"fillfactor"} }

// Prepare implements workload.Workload: pgbench -i -s Scale (-F from the
// layout), or nothing with Init none, where the schema is the user's.
func (w *Workload) Prepare(ctx context.Context, dsn string, layout workload.Layout) error {
	if w.Init == InitNone {
		if len(layout) > 0 {
			return fmt.Errorf("a layout needs init %s: with init %s pgoltp does not load the data", InitPgbench, InitNone)
		}
		return nil
	}
	args := []string{"-i", "-q", "-s", strconv.Itoa(w.Scale)}
	for k, v := range layout {
		if k != "fillfactor" {
			return fmt.Errorf("the script workload has no layout option %q (it has fillfactor)", k)
		}
		args = append(args, "-F", v)
	}
	_, err := w.pgbench(ctx, append(args, dsn))
	return err
}

// Run implements workload.Workload: one pgbench run of ro.Duration (else
// the options'), whole seconds, with per-transaction logs in a directory of
// its own, read into the result and removed.
func (w *Workload) Run(ctx context.Context, dsn string, ro workload.RunOptions) (*workload.Result, error) {
	d := w.Duration
	if ro.Duration > 0 {
		d = ro.Duration
	}
	dir, err := os.MkdirTemp("", "pgoltp-script-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	const prefix = "pgbench_log"
	args := append(w.runArgs(int(math.Ceil(d.Seconds()))), "-l", "--log-prefix="+filepath.Join(dir, prefix), dsn)
	if w.gate != nil {
		if err := w.gate(ctx); err != nil {
			return nil, err
		}
	}
	stdout, runErr := w.pgbench(ctx, args)
	res := &workload.Result{End: time.Now(), Interrupted: ctx.Err() != nil}
	res.Params = w.params()
	command.MeasurePgbench(ro.OnInterval, res, dir, prefix, w.Rate > 0, false, stdout) // one script: res.Rate
	if runErr != nil && !res.Interrupted {
		return res, runErr
	}
	return res, nil
}

// runArgs are pgbench's options of a run of seconds: -n (experiments and
// searches warm up and checkpoint themselves), -r for the per-statement
// latencies.
func (w *Workload) runArgs(seconds int) []string {
	a := []string{"-n", "-r", "-T", strconv.Itoa(max(seconds, 1)), "-c", strconv.Itoa(w.Clients), "-j", strconv.Itoa(w.Jobs), "-M", w.Protocol}
	for _, f := range w.Files {
		a = append(a, "-f", f)
	}
	for _, b := range w.Builtins {
		a = append(a, "-b", b)
	}
	for _, d := range w.Defines {
		a = append(a, "-D", d)
	}
	if len(w.Files) > 0 && len(w.Builtins) == 0 {
		a = append(a, "-s", strconv.Itoa(w.Scale)) // :scale of custom scripts; a built-in reads it from the tables
	}
	if w.Rate > 0 {
		a = append(a, "-R", strconv.FormatFloat(w.Rate, 'f', -1, 64))
	}
	return a
}

// params are the run's options, besides what pgbench's summary says.
func (w *Workload) params() []workload.Param {
	ps := []workload.Param{{Name: "files", Value: strings.Join(w.Files, " ")}, {Name: "builtins", Value: strings.Join(w.Builtins, " ")},
		{Name: "defines", Value: strings.Join(w.Defines, " ")}, {Name: "init", Value: w.Init}}
	if w.Rate > 0 {
		ps = append(ps, workload.Param{Name: "rate", Value: strconv.FormatFloat(w.Rate, 'f', -1, 64) + " txn/s"})
	}
	var out []workload.Param
	for _, p := range ps {
		if p.Value != "" {
			out = append(out, p)
		}
	}
	return out
}

// pgbench runs pgoltp pgbench's command line args in this process and
// returns its standard output; an exit code other than 0 is an error with
// pgbench's first message.
func (w *Workload) pgbench(ctx context.Context, args []string) (string, error) {
	var stdout, stderr strings.Builder
	out := io.Writer(&stdout)
	if w.Output != nil {
		out = io.MultiWriter(&stdout, w.Output)
	}
	env := pgbench.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &limited{w: &stderr, left: 64 << 10}, Getenv: os.Getenv}
	if code := pgbench.Main(ctx, args, env); code != 0 {
		return stdout.String(), fmt.Errorf("pgbench %s ended with exit code %d: %s", args[0], code, firstError(stderr.String()))
	}
	return stdout.String(), nil
}

// limited keeps the first bytes written to it: a client's errors can be
// many.
type limited struct {
	w    io.Writer
	left int
}

func (l *limited) Write(p []byte) (int, error) {
	if n := min(len(p), l.left); n > 0 {
		l.w.Write(p[:n])
		l.left -= n
	}
	return len(p), nil
}
