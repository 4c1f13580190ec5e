package command

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgbenchlog"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// logPlan is where a pgbench run's per-transaction logs will be, and how
// to read them.
type logPlan struct {
	dir, prefix string
	ours        bool // pgoltp asked for them, and removes them
	pid         int  // the process that wrote them (set after the run)
	fields      pgbenchlog.Fields
	sampling    float64 // the fraction logged (1: all)
	note        string  // why there are none, when plan returned nil
}

// plan returns the command line to run and where its logs will be (nil:
// none to read, for a command that is not pgbench, that runs no
// transactions, or that asks for aggregated logs).
func (c *Command) plan() ([]string, *logPlan, error) {
	if len(c.Argv) == 0 {
		return nil, nil, fmt.Errorf("no command to record")
	}
	if !c.Pgbench() {
		return c.Argv, nil, nil
	}
	a := parsePgbenchArgs(c.pgbenchArgs())
	if a.informational || a.initialize || a.aggregate != "" {
		return c.Argv, nil, nil
	}
	lp := &logPlan{sampling: 1, fields: pgbenchlog.Fields{Lag: a.rate, Retries: a.maxTries != "" && a.maxTries != "1"}}
	if a.sampling != "" {
		r, err := strconv.ParseFloat(a.sampling, 64)
		if err == nil && r > 0 && r <= 1 {
			lp.sampling = r
		}
	}
	argv := c.Argv
	if a.log {
		prefix := a.logPrefix
		if prefix == "" {
			prefix = "pgbench_log"
		}
		lp.dir, lp.prefix = filepath.Dir(prefix), filepath.Base(prefix)
	} else {
		if c.LogDir == "" {
			return nil, nil, fmt.Errorf("no directory for pgbench's logs")
		}
		lp.dir, lp.prefix, lp.ours = c.LogDir, "pgbench_log", true
		at := c.pgbenchAt()
		argv = append(append(append([]string{}, c.Argv[:at]...), "-l", "--log-prefix="+filepath.Join(c.LogDir, "pgbench_log")), c.Argv[at:]...)
	}
	return argv, lp, nil
}

// measurePgbench fills res from pgbench's summary and its logs.
func (c *Command) measurePgbench(onInterval workload.IntervalFunc, res *workload.Result, lp *logPlan, stdout string) {
	out := pgbenchlog.ParseOutput(strings.NewReader(stdout))
	for _, p := range out.Params {
		res.Params = append(res.Params, workload.Param{Name: p[0], Value: p[1]})
	}
	if out.HasTPS {
		res.Headline = append(res.Headline, workload.Figure{Name: "TPS", Value: out.TPS, Unit: "txn/s"})
	}
	scripts := scriptNames(res, out.Scripts)
	// after the run's own figures, whichever way this returns
	defer func() { res.Headline = append(res.Headline, statementFigures(out, scripts)...) }()
	log, err := lp.find()
	if err != nil {
		res.Notes = append(res.Notes, "no per-transaction figures: "+err.Error())
		return
	}
	if lp.ours {
		defer removeLog(log)
	}
	onSecond := func(*metrics.Snapshot) {}
	if onInterval != nil {
		onSecond = func(s *metrics.Snapshot) { onInterval(s, pgbenchlog.CounterFailed) }
	}
	sum, err := pgbenchlog.Summarize(log, pgbenchlog.Options{Scripts: scripts, Fields: lp.fields, OnSecond: onSecond})
	if err != nil {
		res.Notes = append(res.Notes, "no per-transaction figures: "+err.Error())
		return
	}
	fillFromLog(res, sum, lp.sampling)
	if out.HasTPS && lp.sampling == 1 && out.TPS > 0 {
		if d := sum.TPS()/out.TPS - 1; math.Abs(d) > 0.005 {
			res.Notes = append(res.Notes, fmt.Sprintf("tps from the logs (%.1f) is %+.1f%% from pgbench's (%.1f)", sum.TPS(), 100*d, out.TPS))
		}
	}
}

// statementFigures are -r's per-statement mean latencies as figures
// (workload.StatementName), by the names the scripts are stored by.
func statementFigures(out pgbenchlog.Output, scripts []string) []workload.Figure {
	var figs []workload.Figure
	for _, st := range out.Statements {
		script := fmt.Sprintf("script %d", st.Script+1)
		if st.Script < len(scripts) {
			script = scripts[st.Script]
		}
		figs = append(figs, workload.Figure{Name: workload.StatementName(script, st.Command), Value: st.MeanMs, Unit: "ms"})
	}
	return figs
}

// MeasurePgbench fills res from the standard output and per-transaction
// logs of a pgbench run made in this process (pgoltp's own engine, as the
// script workload runs it): the logs are dir/prefix.PID, whose lines carry
// schedule lag when lag and retries when retries.
func MeasurePgbench(onInterval workload.IntervalFunc, res *workload.Result, dir, prefix string, lag, retries bool, stdout string) {
	lp := &logPlan{dir: dir, prefix: prefix, pid: os.Getpid(), sampling: 1, fields: pgbenchlog.Fields{Lag: lag, Retries: retries}}
	(&Command{}).measurePgbench(onInterval, res, lp, stdout)
}

// scriptNames are the names a run's scripts are stored by: one script is
// "transaction", as in 'pgoltp tpcb run', so that the two compare type by
// type (its own name goes to the parameters).
func scriptNames(res *workload.Result, scripts []string) []string {
	if len(scripts) != 1 {
		return scripts
	}
	res.Params = append(res.Params, workload.Param{Name: "transaction type", Value: scripts[0]})
	// a group of parts sums it (internal/group)
	res.Rate = workload.Rate{Figure: "TPS", Type: "transaction", Unit: "txn/s", Per: time.Second}
	return []string{"transaction"}
}

// fillFromLog puts a log's summary into a result.
func fillFromLog(res *workload.Result, sum *pgbenchlog.Summary, sampling float64) {
	res.Transactions = int64(math.Round(float64(sum.Committed) / sampling))
	res.Errors = int64(math.Round(float64(sum.Failed) / sampling))
	res.Elapsed = sum.End.Sub(sum.Start)
	all := metrics.NewHistogram()
	for _, h := range sum.Total.Hists {
		all.Merge(h)
	}
	if all.TotalCount() > 0 {
		res.P50, res.P95, res.P99 = metrics.Percentile(all, 50), metrics.Percentile(all, 95), metrics.Percentile(all, 99)
	}
	res.Latency = workload.LatencyOf(sum.Total)
	res.Series, res.ErrorCounter = sum.Series, pgbenchlog.CounterFailed
	res.PerSecond = workload.PerSecondOf(sum.Series)
	res.MeasureStart, res.MeasureEnd = sum.Start, sum.End
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	res.Headline = append(res.Headline, workload.Figure{Name: "TPS (logs)", Value: sum.TPS(), Unit: "txn/s"},
		workload.Figure{Name: "latency mean", Value: all.Mean() / 1000, Unit: "ms"},
		workload.Figure{Name: "latency p99", Value: ms(res.P99), Unit: "ms"},
		workload.Figure{Name: "committed", Value: float64(res.Transactions), Unit: "txn"},
		workload.Figure{Name: "failed", Value: float64(res.Errors), Unit: "txn"},
		workload.Figure{Name: "retries", Value: float64(sum.Retries), Unit: "txn"})
	if sampling < 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("the logs hold a sample (--sampling-rate %g): the series counts the sample, the totals are scaled", sampling))
	}
	if sum.Failed+sum.Skipped+sum.Retries > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d failed, %d skipped, %d retries in the logs", sum.Failed, sum.Skipped, sum.Retries))
	}
}

// find returns the log the run wrote: the one of its process, else the
// only one there.
func (lp *logPlan) find() (pgbenchlog.Log, error) {
	logs, err := pgbenchlog.Find(lp.dir, lp.prefix)
	if err != nil {
		return pgbenchlog.Log{}, err
	}
	for _, l := range logs {
		if l.PID == lp.pid {
			return l, nil
		}
	}
	if len(logs) == 1 && lp.ours {
		return logs[0], nil
	}
	return pgbenchlog.Log{}, fmt.Errorf("pgbench wrote no log %s.%d in %s", lp.prefix, lp.pid, lp.dir)
}

// removeLog removes the files of a log pgoltp asked for.
func removeLog(l pgbenchlog.Log) {
	for _, f := range l.Files {
		_ = os.Remove(f)
	}
}

// tail keeps the last bytes written to it.
type tail struct{ b []byte }

const tailBytes = 64 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	if len(t.b) > tailBytes {
		return string(t.b[len(t.b)-tailBytes:])
	}
	return string(t.b)
}

// outputNotes keeps the end of the command's output in the stored run.
func outputNotes(stdout, stderr string) []string {
	var notes []string
	if s := lastLines(stdout, 60); s != "" {
		notes = append(notes, "output:\n"+s)
	}
	if s := lastLines(stderr, 20); s != "" {
		notes = append(notes, "error output:\n"+s)
	}
	return notes
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
