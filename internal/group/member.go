package group

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// Part statuses in pgoltp_group_parts. A part whose status stays waiting or
// running while its process is gone (or its heartbeat is older than
// StaleAfter) is shown as StatusDead.
const (
	StatusWaiting = "waiting" // registered, waiting for the others
	StatusRunning = "running" // started at the agreed time
	StatusLate    = "late"    // arrived after the group had started: refused, never ran
	StatusGaveUp  = "gave-up" // the barrier timed out before all parts were there
	StatusDead    = "dead"    // shown, never stored: its process died while it ran
)

// Defaults of Options.
const (
	DefaultTimeout = 5 * time.Minute
	DefaultLead    = 3 * time.Second
	pollEvery      = 200 * time.Millisecond
	heartbeatEvery = time.Second
	// StaleAfter: a part whose heartbeat is this old is dead, wherever it
	// runs (on this machine a gone process is seen at once).
	StaleAfter = 15 * time.Second
)

// Options say which group a part joins and where the group meets.
type Options struct {
	Name string
	Part workload.Part
	// Lab and ResultsDSN name the results store (store.Open): the meeting
	// point of the group.
	Lab, ResultsDSN string
	// Timeout bounds the wait for the other parts (0 = DefaultTimeout).
	Timeout time.Duration
	// Lead is how far ahead of the moment the last part registers the group
	// starts, so that every part sees the start before it comes (0 =
	// DefaultLead).
	Lead time.Duration
	Log  io.Writer // "waiting for parts..." lines; nil = none
	// Params are the parameters every part must share (the workload's
	// workload.GroupParams); a part whose differ from the first registered
	// part's is refused. nil: not compared.
	Params []workload.Param
}

// Validate checks the name and the part (1 ≤ k ≤ n); n ≤ warehouses is
// checked by the workload once it knows the database. Its own errors are
// field errors (field.Error).
func (o Options) Validate() error {
	if err := ValidateName(o.Name); err != nil {
		return err
	}
	if o.Part.Whole() {
		return field.New("Part", o.Part, "{Name} %s needs {} k/n: which part this process is, of how many", o.Name)
	}
	return o.Part.Validate()
}

// ErrLate says a part arrived after its group had started; it is recorded
// in the group and refused.
var ErrLate = errors.New("late for its group")

// ErrBarrier says the parts did not all register in time.
var ErrBarrier = errors.New("not all parts of the group registered")

// ErrPartDied says a part died (its process gone, or its heartbeat stale)
// while the group waited for its parts.
var ErrPartDied = errors.New("a part of the group died at the barrier")

// Member is one part's membership: registered in the group, beating its
// heartbeat until Finished.
type Member struct {
	opts Options
	st   *store.Store
	// skew is the store's clock minus ours, measured at registration.
	skew        time.Duration
	skewMethod  string
	start       time.Time // agreed start, store clock
	localStart  time.Time // the same, on our clock
	startedLate time.Duration

	stopBeat chan struct{}
	beatDone sync.WaitGroup
	closed   bool
}

// Join registers part opts.Part of group opts.Name for the run runID of
// workload kind: it opens the store, measures this machine's clock skew
// against the store's server, and records the part. A part arriving after
// the group started is recorded as late and refused (ErrLate): its ramp-up
// would overlap the others' measurement and its window would not be theirs.
func Join(ctx context.Context, opts Options, kind, runID string) (*Member, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Lead <= 0 {
		opts.Lead = DefaultLead
	}
	st, err := store.Open(ctx, opts.Lab, opts.ResultsDSN)
	if err != nil {
		return nil, err
	}
	m := &Member{opts: opts, st: st, stopBeat: make(chan struct{})}
	if m.skew, m.skewMethod, err = measureSkew(ctx, st); err != nil {
		st.Close()
		return nil, fmt.Errorf("reading the clock of %s: %w", st.Where(), err)
	}
	if err := m.registerParams(ctx, runID); err != nil {
		st.Close()
		return nil, err
	}
	host, _ := os.Hostname()
	now := m.serverNow()
	me := store.GroupPart{Part: opts.Part.K, RunID: runID, Owner: host + ":" + strconv.Itoa(os.Getpid()), Status: StatusWaiting,
		Skew: m.skew, Joined: now, Heartbeat: now, Note: m.skewMethod}
	g, earlier, err := st.JoinGroup(ctx, store.Group{Name: opts.Name, Workload: kind, Parts: opts.Part.N, Created: now}, me)
	if errors.Is(err, store.ErrGroupShape) {
		err = problem.Wrap(err, "give every part of a group the same workload and --part n, or use a new --group name", "cannot join group %s", opts.Name)
	} else if err == nil {
		err = m.decide(ctx, g, earlier, me)
	}
	if err == nil {
		err = m.checkParams(ctx, runID)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	m.beatDone.Add(1)
	go m.heartbeat()
	return m, nil
}

// decide settles a registration that found the part's row already there or
// the group started. A part still alive under another process is a
// duplicate; one that gave up or died before the start is replaced; after
// the start, the newcomer is late: recorded in the part's note and refused,
// since its ramp-up would overlap the others' measurement.
func (m *Member) decide(ctx context.Context, g store.Group, earlier *store.GroupPart, me store.GroupPart) error {
	now := m.serverNow()
	st, name, part := m.st, m.opts.Name, m.opts.Part
	alive := earlier != nil && Effective(*earlier, now) != StatusDead && earlier.Status != StatusGaveUp
	switch {
	case earlier != nil && alive && earlier.Status != StatusLate:
		return problem.BadInput("give each part of a group its own k, and a new --group name for a new run",
			"part %s of group %s is already registered (run %s, %s)", part, name, earlier.RunID, earlier.Owner)
	case !g.Start.IsZero():
		note := fmt.Sprintf("a process for this part arrived %s after the start and was refused", now.Sub(g.Start).Round(time.Millisecond))
		if earlier == nil {
			me.Status, me.Note = StatusLate, note
			_ = st.ReplaceGroupPart(ctx, name, me)
		} else {
			_ = st.UpdateGroupPart(ctx, name, part.K, earlier.Status, earlier.Heartbeat, time.Time{}, strings.TrimPrefix(earlier.Note+"; "+note, "; "))
		}
		return &problem.Problem{Code: problem.ExitBadInput, Err: ErrLate,
			What: fmt.Sprintf("group %s started %s ago: part %s arrived after it and is refused (recorded as late)", name, now.Sub(g.Start).Round(time.Second), part),
			Fix:  "start every part before the agreed start, or run them all again under a new --group name"}
	case earlier != nil:
		return st.ReplaceGroupPart(ctx, name, me)
	}
	return nil
}

// measureSkew estimates the store's clock minus ours: PostgreSQL's
// clock_timestamp() against the midpoint of the round trip, the best of a
// few tries (the shortest round trip bounds the error by half of it). SQLite
// is on this machine: skew 0 by construction.
func measureSkew(ctx context.Context, st *store.Store) (time.Duration, string, error) {
	if !st.Postgres() {
		return 0, "skew 0: SQLite store on this machine", nil
	}
	best, bestRTT := time.Duration(0), time.Duration(-1)
	for range 5 {
		server, sent, received, err := st.ServerClock(ctx)
		if err != nil {
			return 0, "", err
		}
		rtt := received.Sub(sent)
		mid := sent.Add(rtt / 2)
		if bestRTT < 0 || rtt < bestRTT {
			best, bestRTT = server.Sub(mid), rtt
		}
	}
	return best, fmt.Sprintf("skew measured against the store server's clock_timestamp() (round trip %s)", bestRTT.Round(time.Microsecond)), nil
}

// serverNow is our estimate of the store's clock.
func (m *Member) serverNow() time.Time { return time.Now().Add(m.skew) }

// Skew is the store's clock minus ours.
func (m *Member) Skew() time.Duration { return m.skew }

// LocalStart is the agreed start on this machine's clock (zero before
// WaitAll returned).
func (m *Member) LocalStart() time.Time { return m.localStart }

func (m *Member) heartbeat() {
	defer m.beatDone.Done()
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-m.stopBeat:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = m.st.GroupHeartbeat(ctx, m.opts.Name, m.opts.Part.K, m.serverNow())
			cancel()
		}
	}
}

// WaitAll waits until all parts of the group are registered and the group
// has an agreed start: the first part to see all n present sets it, Lead
// after now on the store's clock. After Timeout it gives up, naming the
// missing parts (the part is recorded as gave-up).
func (m *Member) WaitAll(ctx context.Context) error {
	deadline := time.Now().Add(m.opts.Timeout)
	logged := time.Now().Add(-8 * time.Second) // the first line after 2 s of waiting
	for {
		g, parts, err := m.st.Group(ctx, m.opts.Name)
		if err != nil {
			return err
		}
		if g.Start.IsZero() {
			if dead := diedWaiting(parts, m.serverNow()); dead != "" {
				m.giveUp(ctx, "")
				return &problem.Problem{Code: problem.ExitFailed, Err: ErrPartDied,
					What: fmt.Sprintf("group %s: %s while waiting for the others", m.opts.Name, dead),
					Fix:  "start every part again (the same --group will do: the group has not started)"}
			}
			present := presentParts(parts, m.serverNow())
			ready := len(present) == g.Parts
			if ready {
				if ready, err = m.paramsAgree(ctx, parts); err != nil {
					return err
				}
			}
			if ready {
				if _, err := m.st.SetGroupStart(ctx, m.opts.Name, m.opts.Part.K, m.serverNow().Add(m.opts.Lead)); err != nil {
					return err
				}
				continue // read the start, whoever set it
			}
			missing := missingParts(present, g.Parts)
			if time.Now().After(deadline) {
				m.giveUp(ctx, "")
				return &problem.Problem{Code: problem.ExitBadInput, Err: ErrBarrier,
					What: fmt.Sprintf("group %s is still missing part %s of %d after %s", m.opts.Name, joinInts(missing), g.Parts, m.opts.Timeout),
					Fix:  "start them with the same --group and results store (--results-dsn), or raise --group-timeout"}
			}
			if m.opts.Log != nil && len(missing) > 0 && time.Since(logged) >= 10*time.Second {
				fmt.Fprintf(m.opts.Log, "group %s: part %s waiting for part %s of %d\n", m.opts.Name, m.opts.Part, joinInts(missing), g.Parts)
				logged = time.Now()
			}
			select {
			case <-ctx.Done():
				m.giveUp(ctx, "")
				return ctx.Err()
			case <-time.After(pollEvery):
			}
			continue
		}
		m.start = g.Start
		m.localStart = g.Start.Add(-m.skew)
		if m.opts.Log != nil {
			fmt.Fprintf(m.opts.Log, "group %s: all %d parts present; part %s starts at %s (skew %s)\n",
				m.opts.Name, g.Parts, m.opts.Part, m.localStart.Format("15:04:05.000"), m.skew.Round(time.Microsecond))
		}
		return nil
	}
}

// giveUp records that the part stopped waiting (timeout, Ctrl-C, refused;
// note says why, "" for nothing): the others no longer count it, and it may
// register again.
func (m *Member) giveUp(ctx context.Context, note string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = m.st.UpdateGroupPart(wctx, m.opts.Name, m.opts.Part.K, StatusGaveUp, m.serverNow(), m.serverNow(), note)
}

// diedWaiting names the parts that registered and died before the start,
// and how their death was seen ("" if none): as during the run, by their
// process being gone (this machine) or their heartbeat going stale.
func diedWaiting(parts []store.GroupPart, now time.Time) string {
	var dead []string
	for _, p := range parts {
		if p.Status != StatusWaiting || Effective(p, now) != StatusDead {
			continue
		}
		how := fmt.Sprintf("no heartbeat for %s", now.Sub(p.Heartbeat).Round(time.Second))
		if !store.OwnerAlive(p.Owner) {
			how = "process " + p.Owner + " is gone"
		}
		dead = append(dead, fmt.Sprintf("part %d died (%s)", p.Part, how))
	}
	return strings.Join(dead, ", ")
}

// presentParts are the parts that registered and still wait: not late,
// not given up, not dead (now is the store's clock).
func presentParts(parts []store.GroupPart, now time.Time) []int {
	var out []int
	for _, p := range parts {
		if st := Effective(p, now); st != StatusLate && st != StatusGaveUp && st != StatusDead {
			out = append(out, p.Part)
		}
	}
	return out
}

func missingParts(present []int, n int) []int {
	have := map[int]bool{}
	for _, k := range present {
		have[k] = true
	}
	var out []int
	for k := 1; k <= n; k++ {
		if !have[k] {
			out = append(out, k)
		}
	}
	return out
}

func joinInts(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = strconv.Itoa(k)
	}
	return strings.Join(s, ", ")
}

// Gate waits until the agreed start (on this machine's clock) and marks the
// part running: the workload calls it with its connections open, just
// before its clock starts (workload.Gated). A part whose connections took
// longer than the lead starts at once, and its lateness is noted.
func (m *Member) Gate(ctx context.Context) error {
	if wait := time.Until(m.localStart); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	} else {
		m.startedLate = -wait
	}
	note := ""
	if m.startedLate > 100*time.Millisecond {
		note = fmt.Sprintf("started %s after the agreed start (connecting took longer than the lead)", m.startedLate.Round(time.Millisecond))
	}
	return m.st.UpdateGroupPart(ctx, m.opts.Name, m.opts.Part.K, StatusRunning, m.serverNow(), time.Time{}, note)
}

// Finished records how the part ended and decides whether it runs the
// group's one consistency check: only a part that completed, once every
// other part has ended (or died), and only the first to claim it. It waits
// a little for parts still running, so that one that died on another
// machine is seen (its heartbeat goes stale) before the check is left to
// it. note says what was decided, for the run's notes.
func (m *Member) Finished(ctx context.Context, status store.Status) (check bool, note string) {
	m.stop()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StaleAfter+time.Minute)
	defer cancel()
	if err := m.st.UpdateGroupPart(ctx, m.opts.Name, m.opts.Part.K, string(status), m.serverNow(), m.serverNow(), ""); err != nil {
		return false, "group: " + err.Error()
	}
	if status != store.Complete {
		return false, fmt.Sprintf("consistency check left to the last part of group %s to complete", m.opts.Name)
	}
	deadline := time.Now().Add(StaleAfter + 5*time.Second)
	for {
		g, parts, err := m.st.Group(ctx, m.opts.Name)
		if err != nil {
			return false, "group: " + err.Error()
		}
		if g.CheckedBy != 0 {
			return false, fmt.Sprintf("consistency check run once for group %s by part %d", m.opts.Name, g.CheckedBy)
		}
		var running []int
		for _, p := range parts {
			if st := Effective(p, m.serverNow()); p.Part != m.opts.Part.K && (st == StatusRunning || st == StatusWaiting) {
				running = append(running, p.Part)
			}
		}
		if len(running) == 0 {
			ok, err := m.st.ClaimGroupCheck(ctx, m.opts.Name, m.opts.Part.K)
			if err != nil {
				return false, "group: " + err.Error()
			}
			if ok {
				return true, fmt.Sprintf("consistency check run once for group %s by this part, the last to finish", m.opts.Name)
			}
			continue
		}
		if time.Now().After(deadline) {
			return false, fmt.Sprintf("consistency check left to part %s of group %s, still running", joinInts(running), m.opts.Name)
		}
		time.Sleep(pollEvery)
	}
}

// Effective is a part's status as shown: waiting or running while its
// process is gone (this machine) or its heartbeat is older than StaleAfter
// (any machine) is dead. now is the store's clock.
func Effective(p store.GroupPart, now time.Time) string {
	if p.Status != StatusWaiting && p.Status != StatusRunning {
		return p.Status
	}
	if !store.OwnerAlive(p.Owner) || now.Sub(p.Heartbeat) > StaleAfter {
		return StatusDead
	}
	return p.Status
}

func (m *Member) stop() {
	if m.closed {
		return
	}
	m.closed = true
	close(m.stopBeat)
	m.beatDone.Wait()
}

// Close stops the heartbeat and closes the store.
func (m *Member) Close() error {
	m.stop()
	return m.st.Close()
}
