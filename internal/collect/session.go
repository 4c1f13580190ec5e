package collect

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/prometheus/procfs"
)

// Options say what to collect and how often.
type Options struct {
	Interval time.Duration // between samples; 0 means one second
	NoOS     bool          // skip /proc and /sys (the server is on another machine)
	NoBloat  bool          // skip pgstattuple_approx before and after (and during)
	// GrowthEvery is how often sizes and autovacuum counts are read during
	// the run (growth.go); 0 means DefaultGrowthEvery, negative never.
	GrowthEvery time.Duration
	// BloatEvery is how often pgstattuple_approx estimates bloat during the
	// run (under the same time budget as before and after); 0 = never.
	BloatEvery time.Duration
	// PoolerDSN, if set, is a pgbouncer admin console (its database
	// "pgbouncer") whose SHOW POOLS and SHOW STATS are sampled too.
	PoolerDSN string
	// Standbys are the primary's standbys read straight too (standby.go):
	// their WAL receiver, replay delay and recovery conflicts.
	Standbys []Standby
}

// Session is a running collection. Start it before the workload, Stop it after.
type Session struct {
	opts   Options
	cfg    *pgx.ConnConfig
	conn   *pgx.Conn // nil while the server is unreachable
	major  int
	stop   chan struct{} // closed by Stop
	done   chan struct{}
	parent context.Context

	mu      sync.Mutex
	samples Samples // Points holds only what Take has not handed out yet
	latest  map[[2]string]Point

	os           *osSampler
	pg           *pgSampler
	pooler       *poolerSampler // nil without Options.PoolerDSN
	poolerWarned bool
	standbys     []*standbySampler
	growth       growthSampler
	stmtsBefore  map[int64]Statement
	tablesBefore []tableState
	backendPID   int
	backendBase  time.Duration // the backend's CPU when this connection's accounting began
	backendSpent time.Duration // CPU of backends of earlier connections
	local        bool          // the server is on this machine
	loopErr      error         // the first sampling failure, if any
}

// Start connects to the database named by dsn, takes the one-time snapshots
// (settings, OS facts, pg_stat_statements and tables before) and starts
// sampling every Interval on its own goroutine and connection. It fails only
// when the server cannot be reached; anything it cannot collect is a warning
// in the Samples.
func Start(ctx context.Context, dsn string, opts Options) (*Session, error) {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	cpu0 := threadCPU()
	runtime.LockOSThread() // snapshot cost is measured on this thread
	defer runtime.UnlockOSThread()
	s, err := connect(ctx, dsn, opts)
	if err != nil {
		return nil, err
	}
	s.snapshotBefore(ctx)
	s.samples.Cost.SnapshotCPU = threadCPU() - cpu0
	s.stop = make(chan struct{})
	s.samples.Start = time.Now()
	go s.loop(ctx)
	return s, nil
}

// connect opens the collector's own connection and learns the server's
// major and whether it runs on this host.
func connect(ctx context.Context, dsn string, opts Options) (*Session, error) {
	cfg, err := adminconn.Config(dsn)
	if err != nil {
		return nil, fmt.Errorf("collector: %w", err)
	}
	cfg.RuntimeParams["application_name"] = "pgoltp collector"
	// A stuck statistics query must never stall the collector, and a lock
	// (CREATE EXTENSION) must never be waited for behind the workload.
	cfg.RuntimeParams["statement_timeout"] = "30s"
	cfg.RuntimeParams["lock_timeout"] = "2s"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("collector: connecting: %w", err)
	}
	s := &Session{opts: opts, cfg: cfg, conn: conn, done: make(chan struct{}), parent: ctx}
	s.samples.Interval = opts.Interval
	if opts.PoolerDSN != "" {
		s.pooler = &poolerSampler{dsn: opts.PoolerDSN}
	}
	var num int
	if err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int, pg_backend_pid()`).Scan(&num, &s.backendPID); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("collector: %w", err)
	}
	s.major = num / 10000
	if s.major < OldestMajor {
		s.warn("PostgreSQL %d is older than %d: some statistics are not collected", s.major, OldestMajor)
	}
	for _, sb := range opts.Standbys {
		p, err := newStandbySampler(sb, s.major, opts.Interval)
		if err != nil {
			conn.Close(ctx)
			return nil, fmt.Errorf("collector: %w", err)
		}
		s.standbys = append(s.standbys, p)
	}
	s.local = isLocal(cfg, s.backendPID)
	if !s.local {
		s.backendPID = 0
	}
	s.samples.Cost.BackendLocal = s.backendPID != 0
	return s, nil
}

// snapshotBefore takes the one-time snapshots (facts, settings, statements
// and tables before the run) and prepares the samplers; what it cannot
// collect is a warning.
func (s *Session) snapshotBefore(ctx context.Context) {
	conn, opts := s.conn, s.opts
	s.samples.Facts = append(s.samples.Facts, serverFacts(ctx, conn)...)
	if st, err := settingsSnapshot(ctx, conn, s.major); err != nil {
		s.warn("no pg_settings snapshot: %v", err)
	} else {
		s.samples.Settings = st
	}
	var err error
	if err := ensureExtension(ctx, conn, "pg_stat_statements"); err != nil {
		s.warn("no top statements: %v", err)
	} else if s.stmtsBefore, err = readStatements(ctx, conn, s.major); err != nil {
		s.warn("no top statements: %v", err)
		s.stmtsBefore = nil
	}
	withBloat := s.startGrowth(ctx)
	if s.tablesBefore, err = readTables(ctx, conn, withBloat); err != nil {
		s.warn("no table sizes: %v", err)
	}
	s.pg = newPGSampler(s.major)
	for _, t := range s.tablesBefore {
		s.pg.tableOIDs = append(s.pg.tableOIDs, t.oid)
		s.pg.tableNames[t.oid] = t.name
	}
	for _, w := range s.pg.probe(ctx, conn) {
		s.warn("%s", w)
	}
	if !opts.NoOS {
		if s.os, err = newOSSampler(); err != nil {
			s.warn("no OS statistics: %v", err)
		} else {
			s.samples.Facts = append(s.samples.Facts, osFacts(s.os.disks)...)
		}
	}
}

// startGrowth sets up the growth sampler and says whether bloat is estimated
// (pgstattuple could be installed, and it was not turned off).
func (s *Session) startGrowth(ctx context.Context) (withBloat bool) {
	withBloat = !s.opts.NoBloat
	if withBloat {
		if err := ensureExtension(ctx, s.conn, "pgstattuple"); err != nil {
			s.warn("no bloat estimates: %v", err)
			withBloat = false
		}
	}
	s.opts.NoBloat = !withBloat
	s.growth = growthSampler{every: s.opts.GrowthEvery}
	if s.growth.every == 0 {
		s.growth.every = DefaultGrowthEvery
	}
	if withBloat {
		// The before-snapshot just estimated bloat: the next one is due
		// BloatEvery from now.
		s.growth.bloatEvery, s.growth.lastBloat = s.opts.BloatEvery, time.Now()
	}
	return withBloat
}

// loop samples until Stop or until ctx ends. It runs on a locked OS thread so
// that the thread's CPU clock measures the collector and nothing else. Its
// queries are never cancelled half-way (pgx closes a connection whose query is
// cancelled, and Stop still needs it); statement_timeout bounds them instead.
func (s *Session) loop(ctx context.Context) {
	qctx := context.WithoutCancel(ctx)
	defer close(s.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var first time.Time
	timer := time.NewTicker(s.opts.Interval)
	defer timer.Stop()
	for {
		now := time.Now()
		c0 := threadCPU()
		if first.IsZero() {
			first = now
			s.backendBase = processCPU(s.backendPID)
		}
		if s.conn == nil {
			s.reconnect(qctx, now)
		}
		err := s.tick(qctx, now)
		s.mu.Lock()
		s.samples.Cost.Ticks++
		s.samples.Cost.TickCPU += threadCPU() - c0
		s.samples.Cost.Elapsed = now.Sub(first) + s.opts.Interval
		s.samples.Cost.BackendCPU = s.backendSpent
		if s.backendPID != 0 {
			s.samples.Cost.BackendCPU += processCPU(s.backendPID) - s.backendBase
		}
		s.mu.Unlock()
		if err != nil {
			// The server went away (a crash, a restart) or refused a query:
			// keep sampling the OS, and reconnect on the next tick.
			if s.loopErr == nil {
				s.loopErr = err
			}
			s.event(Event{At: now, Kind: "collector", Detail: "lost the server: " + oneLine(err.Error())})
			s.dropConn(qctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-timer.C:
		}
	}
}

// dropConn closes a failed connection, keeping its backend's CPU account.
func (s *Session) dropConn(ctx context.Context) {
	if s.backendPID != 0 {
		s.backendSpent += processCPU(s.backendPID) - s.backendBase
	}
	s.backendPID = 0
	if s.conn != nil {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		s.conn.Close(cctx)
		cancel()
	}
	s.conn = nil
}

// reconnect tries once, briefly, to get the server back; counters restart
// from a new baseline so no rate spans the gap.
func (s *Session) reconnect(ctx context.Context, now time.Time) {
	cctx, cancel := context.WithTimeout(ctx, min(2*time.Second, s.opts.Interval))
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, s.cfg)
	if err != nil {
		return
	}
	var pid int
	if err := conn.QueryRow(cctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		conn.Close(cctx)
		return
	}
	s.conn = conn
	if s.local {
		s.backendPID, s.backendBase = pid, processCPU(pid)
	}
	s.pg.restart()
	s.event(Event{At: now, Kind: "collector", Detail: "reconnected to the server"})
}

func (s *Session) event(e Event) {
	s.mu.Lock()
	s.samples.Events = append(s.samples.Events, e)
	s.mu.Unlock()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (s *Session) tick(ctx context.Context, now time.Time) error {
	var pts []Point
	add := func(metric, key string, v float64) {
		pts = append(pts, Point{At: now, Metric: metric, Key: key, Value: v})
	}
	var evs []Event
	if s.os != nil {
		s.os.sample(now, add)
	}
	var err error
	if s.conn != nil {
		err = s.pg.sample(ctx, s.conn, now, add, func(e Event) { evs = append(evs, e) })
	}
	if s.pooler != nil {
		// A pooler that went away is a warning, not a lost server.
		if perr := s.pooler.sample(ctx, now, add); perr != nil && !s.poolerWarned {
			s.poolerWarned = true
			s.warn("pooler statistics: %v", perr)
		}
	}
	for _, sb := range s.standbys {
		// A standby that went away is a warning (once each), not a lost server.
		if serr := sb.sample(ctx, now, add, func(e Event) { evs = append(evs, e) }); serr != nil && !sb.warned {
			sb.warned = true
			s.warn("standby statistics: %v", serr)
		}
	}
	if due, bloat := s.growth.due(now); due && err == nil && s.conn != nil {
		// A slow size or bloat reading is not a lost server: warn once, go on.
		if gerr := sampleGrowth(ctx, s.conn, bloat, add); gerr != nil && !s.growth.warned {
			s.growth.warned = true
			s.warn("sizes during the run: %v", gerr)
		}
	}
	s.keep(pts, evs)
	return err
}

// keep adds one tick's points and events to what the session holds.
func (s *Session) keep(pts []Point, evs []Event) {
	s.mu.Lock()
	s.samples.Points = append(s.samples.Points, pts...)
	s.samples.Events = append(s.samples.Events, evs...)
	if s.latest == nil {
		s.latest = map[[2]string]Point{}
	}
	for _, p := range pts {
		s.latest[[2]string{p.Metric, p.Key}] = p
	}
	s.mu.Unlock()
}

// Major is the server's major version (0 before it was read).
func (s *Session) Major() int { return s.major }

// Latest returns the last value sampled of every metric (and key): what a
// live view (the OpenMetrics endpoint) shows while the run goes.
func (s *Session) Latest() []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Point, 0, len(s.latest))
	for _, p := range s.latest {
		out = append(out, p)
	}
	return out
}

// Take hands out the points and events sampled since the previous Take and
// forgets them, so that a caller storing them as the run goes
// (recorder.Recording, every few seconds) keeps the session's memory bounded
// however long the run lasts, and a run whose process is killed keeps its
// checkpoints. Stop then returns only what was never taken (Samples.Taken and
// EventsTaken count the rest).
func (s *Session) Take() ([]Point, []Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, evs := s.samples.Points, s.samples.Events
	// The next flush will need about as much: one allocation per flush.
	s.samples.Points = make([]Point, 0, len(out))
	s.samples.Events = nil
	s.samples.Taken += len(out)
	s.samples.EventsTaken += len(evs)
	return out, evs
}

// Stop ends sampling, takes the after-snapshots (statements, tables) and
// returns everything. It works after the Start context was cancelled (Ctrl-C):
// the after-snapshots get a short context of their own.
func (s *Session) Stop() (*Samples, error) {
	close(s.stop)
	<-s.done
	if s.pooler != nil {
		s.pooler.close(context.WithoutCancel(s.parent))
	}
	for _, sb := range s.standbys {
		sb.close(s.parent)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.parent), 30*time.Second)
	defer cancel()
	if s.conn == nil {
		s.reconnect(ctx, time.Now())
	}
	if s.conn == nil {
		s.samples.End = time.Now()
		s.samples.Waits = s.pg.waitProfile()
		s.warn("no after-run snapshots: the server is unreachable")
		out := s.samples
		return &out, s.loopErr
	}
	defer s.conn.Close(ctx)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := threadCPU()
	s.samples.End = time.Now()
	s.samples.Waits = s.pg.waitProfile()
	if s.stmtsBefore != nil {
		after, err := readStatements(ctx, s.conn, s.major)
		if err != nil {
			s.warn("no top statements: %v", err)
		} else {
			s.samples.Statements = statementDelta(s.stmtsBefore, after)
		}
	}
	if s.tablesBefore != nil {
		after, err := readTables(ctx, s.conn, !s.opts.NoBloat)
		if err != nil {
			s.warn("no table sizes after the run: %v", err)
		} else {
			s.samples.Tables = tableDelta(s.tablesBefore, after)
		}
	}
	var size int64
	if err := s.conn.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&size); err == nil {
		s.samples.Facts = append(s.samples.Facts, Fact{Scope: "server", Name: "database_size_after", Value: fmt.Sprint(size)})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples.Cost.SnapshotCPU += threadCPU() - c0
	out := s.samples
	return &out, s.loopErr
}

func (s *Session) warn(format string, args ...any) {
	s.mu.Lock()
	s.samples.Warnings = append(s.samples.Warnings, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

// processCPU is the user+system CPU time of a process on this machine.
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0
	}
	st, err := p.Stat()
	if err != nil {
		return 0
	}
	return time.Duration(st.CPUTime() * float64(time.Second))
}

// isLocal reports whether the backend serving the collector runs on this
// machine: the connection goes to a Unix socket or a loopback address and the
// pid is a postgres process we can see.
func isLocal(cfg *pgx.ConnConfig, pid int) bool {
	host := cfg.Host
	local := strings.HasPrefix(host, "/")
	if !local {
		if ip := net.ParseIP(host); ip != nil {
			local = ip.IsLoopback()
		} else {
			local = host == "localhost"
		}
	}
	if !local {
		return false
	}
	p, err := procfs.NewProc(pid)
	if err != nil {
		return false
	}
	if exe, err := p.Executable(); err == nil {
		return strings.Contains(filepath.Base(exe), "postgres")
	}
	comm, err := p.Comm()
	return err == nil && strings.Contains(comm, "postgres")
}
