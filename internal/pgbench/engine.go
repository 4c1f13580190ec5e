package pgbench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// engine is one benchmark run: the parsed scripts, the clients over their
// threads, and the run's clock. Each client is a goroutine with its own
// connection (pgx is synchronous); a thread is what pgbench's thread owns:
// the script-choice, throttle and sample generators, its log file and its
// clients.
type engine struct {
	o       *Options
	env     Env
	log     logger
	cfg     *pgx.ConnConfig
	scripts []*lang.Script
	weights []int64
	total   int64
	mode    lang.QueryMode
	cmds    [][]cmdInfo // by script and command: what the engine knows of them
	nSQL    int         // SQL commands in all the scripts
	nRefs   int         // variable references: the expressions' (lang.NumberVarRefs), the SQL parameters', the \sets'
	table   TableInfo
	threads []*thread
	clients []*client

	start         time.Time // after setup, before the clients connect
	epochStartUs  int64     // start as Unix time, for logs and --progress-timestamp
	endUs         int64     // -T's end on the run's clock, 0 with -t
	throttleDelay float64   // -R: a thread's mean gap in microseconds
	stop          atomic.Bool
	stopOnce      sync.Once
	aborted       atomic.Bool
	outMu         sync.Mutex // stderr lines from several clients
	interrupted   <-chan struct{}
	drive         *Drive // a caller's run (drive.go); nil for pgbench's own
}

// thread is pgbench's TState: what its clients share.
type thread struct {
	id      int
	mu      sync.Mutex
	streams lang.ThreadStreams
	clients []*client
	log     *txLogFile
	trigger int64 // -R: the thread's schedule (pgbench's throttle_trigger)
}

// run is a benchmark run as pgbench's main after option parsing.
func run(ctx context.Context, o *Options, env Env) error {
	e := &engine{o: o, env: env, log: logger{w: env.Stderr, debug: o.Debug}}
	if err := e.parseScripts(); err != nil {
		return err
	}
	if env.NeedCPUs != nil {
		env.NeedCPUs(o.Jobs)
	}
	seeds := lang.NewSeeds(o.RandomSeed)
	defaultSeedSet := false
	for _, v := range o.Vars {
		defaultSeedSet = defaultSeedSet || v.Name == "default_seed"
	}
	clientRNGs := make([]*lang.PRNG, o.Clients)
	for i := range clientRNGs {
		clientRNGs[i] = seeds.Next()
	}
	conn, info, err := Setup(ctx, o, env)
	if err != nil {
		return err
	}
	e.table = info
	e.cfg = conn.Config()
	server := conn.PgConn().ParameterStatus("server_version")
	fmt.Fprintln(env.Stdout, VersionLine(server, ""))
	e.debugConnection()
	if err := e.makeClients(clientRNGs, seeds, defaultSeedSet); err != nil {
		conn.Close(ctx)
		return err
	}
	e.vacuum(ctx, conn)
	conn.Close(ctx)
	e.interrupted = ctx.Done()
	r, err := e.bench(ctx)
	if ctx.Err() != nil {
		// interrupted (SIGINT, SIGTERM): pgbench dies of the signal with no
		// summary; the shell's code for it
		return &Exit{Code: 130}
	}
	if err != nil {
		return err
	}
	WriteSummary(env.Stdout, r)
	if r.Aborted {
		e.log.error("Run was aborted; the above results are incomplete.")
		return &Exit{Code: 2}
	}
	return nil
}

// parseScripts parses the scripts and checks them for -M as pgbench does.
func (e *engine) parseScripts() error {
	e.mode = map[string]lang.QueryMode{"simple": lang.QuerySimple, "extended": lang.QueryExtended, "prepared": lang.QueryPrepared}[e.o.QueryMode]
	for _, s := range e.o.Scripts {
		ps, err := lang.ParseScript(s.Desc, s.Text)
		if err != nil {
			e.log.w.Write([]byte(progName + ": error: " + err.Error() + "\n"))
			return &Exit{Code: 1}
		}
		e.scripts = append(e.scripts, ps)
		e.weights = append(e.weights, int64(s.Weight))
		e.total += int64(s.Weight)
	}
	if e.total == 0 && len(e.scripts) > 0 {
		return e.log.fatal("total script weight must not be zero")
	}
	names, err := lang.CheckQueryMode(e.mode, e.scripts...)
	if err != nil {
		return e.log.fatal("%s", err.(*lang.ScriptError).Msg)
	}
	e.nRefs = lang.NumberVarRefs(e.scripts...)
	e.cmds = make([][]cmdInfo, len(e.scripts))
	for si, s := range e.scripts {
		e.cmds[si] = make([]cmdInfo, len(s.Commands))
		for ci, cmd := range s.Commands {
			switch {
			case cmd.IsSQL():
				e.cmds[si][ci] = cmdInfo{name: names[cmd], n: e.nSQL, ref: e.nRefs, copy: copyData.MatchString(cmd.SQL)}
				e.nSQL++
				e.nRefs += len(cmd.Params)
			case cmd.Meta == lang.MetaSet:
				e.cmds[si][ci].ref = e.nRefs
				e.nRefs++
			}
		}
	}
	return nil
}

// cmdInfo is what the engine knows of a command, indexed by script and
// command rather than looked up by the command on every execution.
type cmdInfo struct {
	name string // SQL: its prepared statement (-M prepared)
	n    int    // SQL: its number among the run's SQL commands (client.prepared)
	ref  int    // SQL: its first parameter's variable reference; \set: its variable's (client.refs)
	copy bool   // SQL: a COPY from stdin or to stdout
}

// vacuum is pgbench's pre-run vacuum (-n skips it, -v adds accounts).
func (e *engine) vacuum(ctx context.Context, conn *pgx.Conn) {
	if e.o.NoVacuum {
		return
	}
	try := func(sql string) {
		if _, err := conn.Exec(ctx, sql); err != nil {
			e.log.error("%s", errorText(err))
			e.log.detail("(ignoring this error and continuing anyway)")
		}
	}
	fmt.Fprint(e.env.Stderr, "starting vacuum...")
	try("vacuum pgbench_branches")
	try("vacuum pgbench_tellers")
	try("truncate pgbench_history")
	fmt.Fprint(e.env.Stderr, "end.\n")
	if e.o.VacuumAll {
		fmt.Fprint(e.env.Stderr, "starting vacuum pgbench_accounts...")
		try("vacuum analyze pgbench_accounts")
		fmt.Fprint(e.env.Stderr, "end.\n")
	}
}

// makeClients gives every client its variables (-D, then scale,
// client_id, default_seed and random_seed unless -D set them) and deals
// the clients to threads as pgbench does.
func (e *engine) makeClients(rngs []*lang.PRNG, seeds *lang.Seeds, defaultSeedSet bool) error {
	o := e.o
	base := lang.NewVars()
	for _, v := range o.Vars {
		if err := base.SetText("option", v.Name, v.Value); err != nil {
			return e.log.fatal("%v", err)
		}
	}
	var defaultSeed int64
	if !defaultSeedSet {
		defaultSeed = int64(seeds.Uint64())
	}
	for i := 0; i < o.Clients; i++ {
		vars := base.Clone()
		set := func(name string, v int64) {
			if !base.Has(name) {
				vars.Set("startup", name, lang.IntValue(v))
			}
		}
		set("scale", int64(e.table.Scale))
		set("client_id", int64(i))
		set("default_seed", defaultSeed)
		set("random_seed", int64(o.RandomSeed))
		e.clients = append(e.clients, newClient(e, i, vars, rngs[i]))
	}
	dealt := 0
	for i := 0; i < o.Jobs; i++ {
		n := (o.Clients - dealt + o.Jobs - i - 1) / (o.Jobs - i)
		t := &thread{id: i, clients: e.clients[dealt : dealt+n]}
		t.streams = lang.ThreadStreams{Choose: seeds.Next(), Throttle: seeds.Next(), Sample: seeds.Next()}
		for _, c := range t.clients {
			c.thread = t
		}
		e.threads = append(e.threads, t)
		dealt += n
	}
	return nil
}

// printf writes one message to stderr whole, as several clients may.
func (e *engine) printf(format string, args ...any) {
	select {
	case <-e.interrupted: // the clients' errors are the interruption's
		return
	default:
	}
	e.outMu.Lock()
	fmt.Fprintf(e.env.Stderr, format, args...)
	e.outMu.Unlock()
}

func (e *engine) debugf(format string, args ...any) {
	if e.o.Debug {
		e.printf("%s: %s\n", progName, fmt.Sprintf(format, args...))
	}
}

// debugConnection is pgbench's first --debug line.
func (e *engine) debugConnection() {
	what, n := "nxacts", e.o.Transactions
	if e.o.Duration > 0 {
		what, n = "duration", e.o.Duration
	}
	host, port := e.cfg.Host, e.cfg.Port
	e.debugf("pghost: %s pgport: %d nclients: %d %s: %d dbName: %s", host, port, e.o.Clients, what, n, e.cfg.Database)
}
