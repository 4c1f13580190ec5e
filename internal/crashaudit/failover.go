package crashaudit

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/connstr"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// Failoverer is a primary with streaming standbys the failover audit may
// kill and fail over: *cluster.Cluster.
type Failoverer interface {
	DSN(db string) string
	StandbyCount() int
	// SetSynchronous makes replication synchronous (on) or not, returning
	// how to put the server's own level back.
	SetSynchronous(ctx context.Context, on bool) (func(context.Context) error, error)
	Kill() error // SIGKILL the primary's postmaster and its processes
	// CutReplication cuts the running primary off from its standbys
	// (replication refused in pg_hba.conf, walsenders terminated).
	CutReplication(ctx context.Context) error
	// Fence stops the old primary at once after a standby was promoted.
	Fence(ctx context.Context) error
	// PromoteMostAdvanced promotes the standby that received the most WAL
	// and returns its name and the DSN of database db on it.
	PromoteMostAdvanced(ctx context.Context, db string) (name, dsn string, err error)
	// RebuildStandbys makes the old primary the primary again and clones
	// the standbys anew.
	RebuildStandbys(ctx context.Context) error
}

// How the failover audit takes the primary away.
const (
	// KillPrimary: SIGKILL of the primary's postmaster and processes.
	KillPrimary = "primary"
	// KillNetwork: the primary is cut off from its standbys but keeps
	// running, and its clients keep committing on it, until a standby is
	// promoted and the old primary fenced (stopped). With asynchronous
	// replication it acknowledges commits no standby has; with synchronous
	// replication those commits wait for a standby and are never
	// acknowledged.
	KillNetwork = "network"
)

// FailoverAudit runs the ledger on the primary, kills it mid-run (or cuts it
// off), promotes the most advanced standby, and counts the acknowledged
// commits the new primary does not have (issue 31).
type FailoverAudit struct {
	Cluster     Failoverer
	Kill        string // KillPrimary (default) or KillNetwork
	Database    string // where the ledger lives
	Synchronous bool
	// SyncCommit is synchronous_commit of the ledger's sessions when
	// Synchronous (on, remote_write, remote_apply; "" = the server's).
	SyncCommit string
	Workload   ledger.Ledger
	KillAfter  time.Duration // run this long, then kill (default 5s)
	Log        io.Writer
}

// FailoverReport is the outcome of a failover audit. Counted, not estimated.
type FailoverReport struct {
	Synchronous  bool          `json:"synchronous"`
	SyncCommit   string        `json:"synchronous_commit,omitempty"`
	Kill         string        `json:"kill"` // KillPrimary or KillNetwork
	Workload     string        `json:"workload"`
	KilledAfter  time.Duration `json:"killed_after_ns"`
	Promoted     string        `json:"promoted"`
	Acknowledged int64         `json:"acknowledged"` // commits the driver saw succeed on the old primary
	Lost         int64         `json:"lost"`         // acknowledged but absent on the new primary
	LostIDs      []int64       `json:"lost_ids,omitempty"`
	// InDoubt are rows on the new primary whose COMMIT never returned to
	// the driver (in flight at the kill): never promised, not a loss.
	InDoubt        int64         `json:"in_doubt_present"`
	WithoutPrimary time.Duration `json:"without_primary_ns"` // from the kill (or cut) to the promoted standby taking writes
	// Commits per second acknowledged by the old primary over its run
	// (with a network cut, until it was fenced), and by the new one when
	// the clients reconnect to it (a run of KilledAfter).
	RateBefore float64 `json:"commits_per_s_before"`
	RateAfter  float64 `json:"commits_per_s_after"`
	Verdict    string  `json:"verdict"`
	Rebuilt    bool    `json:"rebuilt"` // the lab's primary and standbys are back
}

// ErrNoStandby is the audit on a cluster without standbys.
var ErrNoStandby = problem.BadInput("run 'pgoltp cluster up --standbys 1' first", "a failover needs a standby, and the lab's cluster has none")

// Run performs the audit; afterwards the lab is put back (the old primary
// recovered as the primary, its standbys cloned again, the sync level as it was).
func (a *FailoverAudit) Run(ctx context.Context) (_ *FailoverReport, err error) {
	if a.Cluster.StandbyCount() == 0 {
		return nil, ErrNoStandby
	}
	if a.KillAfter <= 0 {
		a.KillAfter = 5 * time.Second
	}
	if a.Kill == "" {
		a.Kill = KillPrimary
	}
	if a.Kill != KillPrimary && a.Kill != KillNetwork {
		return nil, problem.BadInput("use --kill primary or --kill network", "--kill %s is not a way to take the primary away", a.Kill)
	}
	rep := &FailoverReport{Synchronous: a.Synchronous, Kill: a.Kill, Workload: a.Workload.Name(), KilledAfter: a.KillAfter}
	dsn := a.Cluster.DSN(a.Database)
	if a.Synchronous && a.SyncCommit != "" {
		rep.SyncCommit = a.SyncCommit
		var err error
		if dsn, err = connstr.With(dsn, "synchronous_commit", a.SyncCommit); err != nil {
			return nil, err
		}
	}
	restoreSync, err := a.Cluster.SetSynchronous(ctx, a.Synchronous)
	if err != nil {
		return nil, fmt.Errorf("setting the replication level: %w", err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
		defer cancel()
		rerr := restoreSync(rctx)
		if rerr == nil {
			rerr = a.Cluster.RebuildStandbys(rctx)
		}
		rep.Rebuilt = rerr == nil
		if rerr != nil && err == nil {
			err = fmt.Errorf("putting the lab back after the failover: %w", rerr)
		}
	}()
	if err := a.Workload.Prepare(ctx, dsn, nil); err != nil {
		return nil, fmt.Errorf("preparing the ledger: %w", err)
	}
	newDSN, err := a.failOver(ctx, dsn, rep)
	if err != nil {
		return rep, err
	}
	// The clients reconnect to the new primary and carry on.
	_, after, err := a.Workload.RunLogged(ctx, newDSN, a.KillAfter)
	if err != nil {
		return rep, fmt.Errorf("running on the new primary: %w", err)
	}
	rep.RateAfter = float64(len(after)) / a.KillAfter.Seconds()
	return rep, nil
}

// failOver runs the ledger on the primary for KillAfter, takes the primary
// away, promotes the most advanced standby (with a network cut, then fences
// the old primary, whose clients commit until then), and counts what the
// new primary lacks. It returns the DSN of the database on the new primary.
func (a *FailoverAudit) failOver(ctx context.Context, dsn string, rep *FailoverReport) (string, error) {
	type result struct {
		acked ledger.Acked
		err   error
	}
	done := make(chan result, 1)
	started := time.Now()
	go func() {
		_, acked, err := a.Workload.RunLogged(ctx, dsn, a.KillAfter+time.Minute)
		done <- result{acked, err}
	}()
	a.logf("running %s (%s replication) for %s, then %s", a.Workload.Name(), syncWord(a.Synchronous, a.SyncCommit), a.KillAfter, killWords[a.Kill])
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-done:
		return "", fmt.Errorf("the workload stopped before the kill: %v", r.err)
	case <-time.After(a.KillAfter):
	}
	killedAt := time.Now()
	if err := a.takeAway(ctx); err != nil {
		return "", err
	}
	name, newDSN, err := a.Cluster.PromoteMostAdvanced(ctx, a.Database)
	if err != nil {
		return "", fmt.Errorf("failing over: %w", err)
	}
	rep.Promoted, rep.WithoutPrimary = name, time.Since(killedAt)
	if a.Kill == KillNetwork {
		if err := a.Cluster.Fence(ctx); err != nil {
			return "", err
		}
	}
	r := <-done
	rep.Acknowledged = int64(len(r.acked))
	rep.RateBefore = float64(rep.Acknowledged) / time.Since(started).Seconds()
	if a.Kill == KillPrimary {
		rep.RateBefore = float64(rep.Acknowledged) / a.KillAfter.Seconds()
	}
	a.logf("%s with %d commits acknowledged; promoted %s after %s", killWords[a.Kill], rep.Acknowledged, name, rep.WithoutPrimary.Round(time.Millisecond))
	present, err := ledgerIDs(ctx, newDSN)
	if err != nil {
		return "", err
	}
	rep.count(r.acked, present)
	return newDSN, nil
}

// killWords say what takeAway does, for the log and the report.
var killWords = map[string]string{
	KillPrimary: "killing the primary (SIGKILL)",
	KillNetwork: "cutting the primary's replication (fenced after the promotion)",
}

// takeAway kills the primary or cuts it off from its standbys.
func (a *FailoverAudit) takeAway(ctx context.Context) error {
	if a.Kill == KillNetwork {
		if err := a.Cluster.CutReplication(ctx); err != nil {
			return fmt.Errorf("cutting the primary's replication: %w", err)
		}
		return nil
	}
	if err := a.Cluster.Kill(); err != nil {
		return fmt.Errorf("killing the primary: %w", err)
	}
	return nil
}

// count compares the acknowledged ids with those on the new primary.
func (rep *FailoverReport) count(acked ledger.Acked, present map[int64]struct{}) {
	var c CrashReport
	c.Acknowledged = rep.Acknowledged
	c.count(acked, present)
	rep.Lost, rep.LostIDs, rep.InDoubt = c.Missing, c.MissingIDs, c.Unacknowledged
	switch {
	case rep.Acknowledged == 0:
		rep.Verdict = "inconclusive: nothing was acknowledged before the kill"
	case rep.Lost == 0:
		rep.Verdict = fmt.Sprintf("no acknowledged commit lost in the failover (%d acknowledged, all on %s)", rep.Acknowledged, rep.Promoted)
	default:
		rep.Verdict = fmt.Sprintf("%d of %d acknowledged commits LOST in the failover", rep.Lost, rep.Acknowledged)
	}
}

// Failure is the audit's failure (exit 1): a loss with synchronous replication.
func (rep *FailoverReport) Failure() error {
	if rep.Synchronous && rep.Lost > 0 {
		return problem.Failed("%d acknowledged commits lost in a failover with synchronous replication", rep.Lost)
	}
	return nil
}

// WriteText writes the audit for a person.
func (rep *FailoverReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "failover audit: %s, %s replication, %s after %s, %s promoted\n",
		rep.Workload, syncWord(rep.Synchronous, rep.SyncCommit), killWords[rep.Kill], rep.KilledAfter, rep.Promoted)
	fmt.Fprintf(&b, "acknowledged commits: %d\nlost (not on the new primary): %d\n", rep.Acknowledged, rep.Lost)
	if len(rep.LostIDs) > 0 {
		fmt.Fprintf(&b, "first lost ids: %v\n", rep.LostIDs)
	}
	fmt.Fprintf(&b, "in doubt (on the new primary, never acknowledged; allowed): %d\n", rep.InDoubt)
	if rep.Kill == KillNetwork && rep.Synchronous {
		b.WriteString("(cut off, the old primary's commits waited for a standby: none was acknowledged, so none can be lost)\n")
	}
	fmt.Fprintf(&b, "time without a primary: %s\n", rep.WithoutPrimary.Round(time.Millisecond))
	fmt.Fprintf(&b, "commits/s: %.0f before the kill, %.0f on the new primary", rep.RateBefore, rep.RateAfter)
	if rep.Synchronous {
		b.WriteString(" (which has no standby: its commits wait for none)")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "verdict: %s\n", rep.Verdict)
	if !rep.Rebuilt {
		b.WriteString("note: the lab could not be put back; run 'pgoltp cluster destroy' and 'cluster up' again\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func syncWord(on bool, commit string) string {
	switch {
	case !on:
		return "asynchronous"
	case commit != "":
		return "synchronous (synchronous_commit=" + commit + ")"
	}
	return "synchronous"
}

func (a *FailoverAudit) logf(format string, args ...any) {
	if a.Log != nil {
		fmt.Fprintf(a.Log, format+"\n", args...)
	}
}
