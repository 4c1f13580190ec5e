package crashaudit

import (
	"context"
	"fmt"
	"github.com/pgoltp/pgoltp/internal/field"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// Crasher is a server the durability audit may crash: *cluster.Cluster.
type Crasher interface {
	restore.Server
	Kill() error                     // SIGKILL the postmaster and every backend
	Start(ctx context.Context) error // start again (crash recovery runs)
}

// CrashAudit runs the Ledger workload with some settings, kills the server
// hard mid-run, restarts it and counts acknowledged commits that are gone.
type CrashAudit struct {
	Server      Crasher
	DSN         string            // database the ledger lives in (superuser)
	Settings    map[string]string // what to audit, e.g. synchronous_commit=off
	AllowUnsafe bool
	Workload    ledger.Ledger
	KillAfter   time.Duration // run this long, then kill (default 5s)
	Log         io.Writer
	// Pending keeps the original settings in the lab from before the first
	// change until they are restored and verified (nil: not kept).
	Pending *pending.Guard
}

// CrashReport is the outcome of a durability audit.
type CrashReport struct {
	Server       string          `json:"server"`
	Settings     []settings.Pair `json:"settings"`
	Unsafe       []string        `json:"unsafe,omitempty"`
	Workload     string          `json:"workload"`
	KilledAfter  time.Duration   `json:"killed_after_ns"`
	Acknowledged int64           `json:"acknowledged"` // commits the driver saw succeed
	Missing      int64           `json:"missing"`      // acknowledged but absent after recovery
	MissingIDs   []int64         `json:"missing_ids,omitempty"`
	// Unacknowledged are rows present whose COMMIT never returned to the
	// driver (in flight at the crash): allowed, they were never promised.
	Unacknowledged int64         `json:"unacknowledged_present"`
	Recovery       time.Duration `json:"recovery_ns"` // from Start to accepting connections
	Verdict        string        `json:"verdict"`
	Caveat         string        `json:"caveat"`
	Restored       bool          `json:"restored"`
}

// killCaveat says what a process kill can and cannot show.
const killCaveat = "the server was killed with SIGKILL, a process crash: the OS page cache survived, so losses that need an OS crash or power loss (fsync=off, full_page_writes=off) cannot show here; commits only in PostgreSQL's WAL buffers (synchronous_commit=off) can"

// Run performs the audit.
func (c *CrashAudit) Run(ctx context.Context) (_ *CrashReport, err error) {
	if c.KillAfter <= 0 {
		c.KillAfter = 5 * time.Second
	}
	live, major, version, err := c.checkServer(ctx)
	if err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Keys(c.Settings))
	rep := &CrashReport{Server: version, Settings: settings.Labelled(major, c.Settings), Workload: c.Workload.Name(),
		KilledAfter: c.KillAfter, Caveat: killCaveat}
	for _, p := range rep.Settings {
		if p.Risk.Unsafe() {
			rep.Unsafe = append(rep.Unsafe, fmt.Sprintf("%s=%s %s", p.Name, p.Value, settings.Tag(p.Risk)))
		}
	}
	// Kept in the lab before anything changes: a kill -9 leaves a record.
	if live, err = c.Pending.Begin(live, names); err != nil {
		return nil, err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
		defer cancel()
		if serr := c.Server.Start(rctx); serr == nil {
			rep.Restored, _ = restore.Kept(rctx, c.Server, c.DSN, c.Pending, live, names, nil)
		}
		if !rep.Restored && err != nil {
			err = fmt.Errorf("%w; the original settings could NOT be restored: run 'pgoltp restore'", err)
		}
	}()
	if _, err := restore.Apply(ctx, c.Server, c.Settings); err != nil {
		return nil, fmt.Errorf("applying settings: %w", err)
	}
	if err := c.Workload.Prepare(ctx, c.DSN, nil); err != nil {
		return nil, fmt.Errorf("preparing the ledger: %w", err)
	}

	type result struct {
		acked ledger.Acked
		err   error
	}
	done := make(chan result, 1)
	go func() {
		// Run far longer than the kill point: the crash ends it.
		_, acked, err := c.Workload.RunLogged(ctx, c.DSN, c.KillAfter+time.Minute)
		done <- result{acked, err}
	}()
	c.logf("running %s with %s for %s, then killing the server", c.Workload.Name(), experiment.Pairs(rep.Settings, nil), c.KillAfter)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-done:
		return nil, fmt.Errorf("the workload stopped before the crash: %v", r.err)
	case <-time.After(c.KillAfter):
	}
	if err := c.Server.Kill(); err != nil {
		return nil, fmt.Errorf("killing the server: %w", err)
	}
	r := <-done
	rep.Acknowledged = int64(len(r.acked))
	c.logf("killed with %d commits acknowledged; restarting (crash recovery)", rep.Acknowledged)

	t0 := time.Now()
	if err := c.Server.Start(ctx); err != nil {
		return rep, fmt.Errorf("restarting after the crash: %w", err)
	}
	rep.Recovery = time.Since(t0)

	present, err := ledgerIDs(ctx, c.DSN)
	if err != nil {
		return rep, err
	}
	rep.count(r.acked, present)
	return rep, nil
}

// checkServer reads the server's settings, major version and version string,
// and refuses settings it would not take (or unsafe ones without
// AllowUnsafe) before anything is applied.
func (c *CrashAudit) checkServer(ctx context.Context) (map[string]settings.Live, int, string, error) {
	setupCtx, cancel := context.WithTimeout(ctx, experiment.SetupTimeout)
	defer cancel()
	conn, err := adminconn.Connect(setupCtx, c.DSN)
	if err != nil {
		return nil, 0, "", problem.Wrap(err, "check the server", "cannot connect for the durability audit")
	}
	live, major, err := settings.ReadServer(setupCtx, conn)
	var version string
	if err == nil {
		err = conn.QueryRow(setupCtx, "SELECT 'PostgreSQL ' || current_setting('server_version')").Scan(&version)
	}
	conn.Close(context.Background())
	if err != nil {
		return nil, 0, "", err
	}
	for _, n := range slices.Sorted(maps.Keys(c.Settings)) {
		if err := settings.ValidateLive(live, major, n, c.Settings[n]); err != nil {
			return nil, 0, "", field.Bad("Settings", "", err.Error(), "").Because(err)
		}
		if r, why := settings.LabelFor(major, n, c.Settings[n]); r.Unsafe() && !c.AllowUnsafe {
			return nil, 0, "", problem.BadInput("pass --allow-unsafe to audit it (that is what the audit is for; it is labelled in every output)",
				"%s=%s is %s: %s", n, c.Settings[n], r, why)
		}
	}
	effective := map[string]string{}
	for name, l := range live {
		effective[name] = l.Value()
	}
	maps.Copy(effective, c.Settings)
	if err := settings.CheckTogether(effective); err != nil {
		return nil, 0, "", field.Bad("Settings", "", err.Error(), "").Because(err)
	}
	if err := experiment.MemoryFits(effective); err != nil {
		return nil, 0, "", field.Bad("Settings", "", err.Error(), "").Because(err)
	}
	return live, major, version, nil
}

// count compares the acknowledged ids with those present after recovery and
// gives the verdict.
func (rep *CrashReport) count(acked ledger.Acked, present map[int64]struct{}) {
	ackSet := make(map[int64]struct{}, len(acked))
	for _, id := range acked {
		ackSet[id] = struct{}{}
		if _, ok := present[id]; !ok {
			rep.Missing++
			if len(rep.MissingIDs) < 20 {
				rep.MissingIDs = append(rep.MissingIDs, id)
			}
		}
	}
	sort.Slice(rep.MissingIDs, func(i, j int) bool { return rep.MissingIDs[i] < rep.MissingIDs[j] })
	for id := range present {
		if _, ok := ackSet[id]; !ok {
			rep.Unacknowledged++
		}
	}
	switch {
	case rep.Acknowledged == 0:
		rep.Verdict = "inconclusive: nothing was acknowledged before the crash"
	case rep.Missing == 0:
		rep.Verdict = fmt.Sprintf("no acknowledged commit lost (%d acknowledged, all present)", rep.Acknowledged)
	default:
		rep.Verdict = fmt.Sprintf("%d of %d acknowledged commits LOST", rep.Missing, rep.Acknowledged)
	}
}

// ledgerIDs reads every id present in ledger_entry.
func ledgerIDs(ctx context.Context, dsn string) (map[int64]struct{}, error) {
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connecting after recovery: %w", err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT id FROM ledger_entry")
	if err != nil {
		return nil, err
	}
	out := map[int64]struct{}{}
	var id int64
	_, err = pgx.ForEachRow(rows, []any{&id}, func() error {
		out[id] = struct{}{}
		return nil
	})
	return out, err
}

// WriteText writes the audit for a person.
func (r *CrashReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "durability audit on %s: %s, killed after %s\n", r.Server, r.Workload, r.KilledAfter)
	if len(r.Unsafe) > 0 {
		fmt.Fprintf(&b, "UNSAFE SETTINGS USED (--allow-unsafe): %s\n", strings.Join(r.Unsafe, "; "))
	}
	fmt.Fprintf(&b, "settings: %s\n", experiment.Pairs(r.Settings, nil))
	fmt.Fprintf(&b, "acknowledged commits: %d\nmissing after recovery: %d\n", r.Acknowledged, r.Missing)
	if len(r.MissingIDs) > 0 {
		fmt.Fprintf(&b, "first missing ids: %v\n", r.MissingIDs)
	}
	fmt.Fprintf(&b, "present but never acknowledged (in flight at the crash, allowed): %d\n", r.Unacknowledged)
	fmt.Fprintf(&b, "crash recovery took %s\n", r.Recovery.Round(time.Millisecond))
	fmt.Fprintf(&b, "verdict: %s\n", r.Verdict)
	fmt.Fprintf(&b, "caveat: %s\n", r.Caveat)
	if !r.Restored {
		b.WriteString("note: the original settings could not be restored\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *CrashAudit) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}
