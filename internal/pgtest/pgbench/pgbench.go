// Package pgbench runs PostgreSQL's own pgbench as a real workload and turns
// what it measured (its per-transaction log) into a store.Run, with the
// collectors sampling around it. It exists so the results store, the report and
// the collectors' cost can be tested and benchmarked against a real workload
// that does not depend on pgoltp's own drivers.
package pgbench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/store"
)

// Options of one pgbench run: TPC-B-like and select-only scripts, 9:1, so the
// run has two transaction types.
type Options struct {
	Bin       string // pgbench binary; "" finds one (Find: PATH, then installed servers)
	Scale     int
	Clients   int
	Seconds   int
	Collect   collect.Options
	NoInit    bool   // the database already holds pgbench tables
	LogDir    string // where pgbench writes its per-transaction logs; "" = a temp dir
	Title     string
	Collector bool      // sample OS and PostgreSQL around the run
	Start     time.Time // the run's time axis starts here (a recording began earlier); zero: when pgbench starts
}

// types are the scripts' names in the order pgbench numbers them.
var types = []string{"tpcb-like", "select-only"}

// Run initializes (unless NoInit) and runs pgbench against dsn and returns the
// run, not yet stored.
func Run(ctx context.Context, dsn string, o Options) (*store.Run, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if o.LogDir == "" {
		d, err := os.MkdirTemp("", "pgbench-log-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		o.LogDir = d
	}
	if !o.NoInit {
		out, err := exec.CommandContext(ctx, o.Bin, "-i", "-q", "-s", strconv.Itoa(o.Scale), dsn).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("pgbench -i: %v: %s", err, lastLine(out))
		}
	}
	var sess *collect.Session
	if o.Collector {
		var err error
		if sess, err = collect.Start(ctx, dsn, o.Collect); err != nil {
			return nil, err
		}
	}
	threads := min(o.Clients, 2)
	args := []string{"-c", strconv.Itoa(o.Clients), "-j", strconv.Itoa(threads), "-T", strconv.Itoa(o.Seconds),
		"-M", "prepared", "-b", types[0] + "@9", "-b", types[1] + "@1", "-l", "--log-prefix", filepath.Join(o.LogDir, "txn"), dsn}
	run := &store.Run{Workload: "pgbench", Title: o.Title, StartedAt: o.Start}
	if run.StartedAt.IsZero() {
		run.StartedAt = time.Now()
	}
	if run.Title == "" {
		run.Title = fmt.Sprintf("pgbench scale %d, %d clients, %ds", o.Scale, o.Clients, o.Seconds)
	}
	out, runErr := exec.CommandContext(ctx, o.Bin, args...).CombinedOutput()
	run.EndedAt = time.Now()
	if sess != nil {
		samples, err := sess.Stop()
		run.Samples = samples
		if err != nil {
			run.Notes = append(run.Notes, "collector: "+err.Error())
		}
	}
	run.Status = store.Complete
	if runErr != nil {
		run.Status = store.Failed
		run.Notes = append(run.Notes, "pgbench: "+runErr.Error()+": "+lastLine(out))
		if ctx.Err() != nil {
			run.Status = store.Interrupted
		}
	}
	run.Params = o.params(threads)
	if err := readLogs(run, o.LogDir); err != nil {
		return run, err
	}
	addHeadline(run, out)
	return run, nil
}

// defaults fills the options left zero, finding pgbench if needed.
func (o *Options) defaults() error {
	if o.Bin == "" {
		bin, err := Find()
		if err != nil {
			return err
		}
		o.Bin = bin
	}
	if o.Scale <= 0 {
		o.Scale = 1
	}
	if o.Clients <= 0 {
		o.Clients = 2
	}
	if o.Seconds <= 0 {
		o.Seconds = 5
	}
	return nil
}

// params are the run's parameters, pgbench's version included.
func (o *Options) params(threads int) []store.KV {
	version, _ := exec.Command(o.Bin, "--version").Output()
	return []store.KV{
		{Name: "scale", Value: strconv.Itoa(o.Scale)},
		{Name: "clients", Value: strconv.Itoa(o.Clients)},
		{Name: "threads", Value: strconv.Itoa(threads)},
		{Name: "duration", Value: fmt.Sprintf("%ds", o.Seconds)},
		{Name: "protocol", Value: "prepared"},
		{Name: "scripts", Value: types[0] + "@9 " + types[1] + "@1"},
		{Name: "pgbench", Value: strings.TrimSpace(string(version))},
	}
}

// addHeadline adds pgbench's TPS (from its output) and the transactions and
// latency percentiles of the logged histograms.
func addHeadline(run *store.Run, out []byte) {
	if m := regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`).FindSubmatch(out); m != nil {
		tps, _ := strconv.ParseFloat(string(m[1]), 64)
		run.Headline = append(run.Headline, store.Figure{Name: "TPS", Value: tps, Unit: "txn/s"})
	}
	var total int64
	all := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
	for _, snap := range run.Latency {
		h := hdrhistogram.Import(snap)
		total += h.TotalCount()
		all.Merge(h)
	}
	run.Headline = append(run.Headline,
		store.Figure{Name: "transactions", Value: float64(total), Unit: ""},
		store.Figure{Name: "latency p95", Value: float64(all.ValueAtQuantile(95)) / 1000, Unit: "ms"},
		store.Figure{Name: "latency p99", Value: float64(all.ValueAtQuantile(99)) / 1000, Unit: "ms"})
}

// readLogs reads pgbench's per-transaction logs ("client txn latency_us
// script epoch_s epoch_us") into whole-run histograms and per-second series.
func readLogs(run *store.Run, dir string) error {
	files, _ := filepath.Glob(filepath.Join(dir, "txn*"))
	if len(files) == 0 {
		return fmt.Errorf("pgbench wrote no transaction log in %s", dir)
	}
	whole := map[string]*hdrhistogram.Histogram{}
	type key struct {
		sec int
		typ string
	}
	per := map[key]*hdrhistogram.Histogram{}
	errs := map[key]int64{}
	start := run.StartedAt.UnixMicro()
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 6 {
				continue
			}
			script, _ := strconv.Atoi(fields[3])
			if script < 0 || script >= len(types) {
				continue
			}
			typ := types[script]
			s, _ := strconv.ParseInt(fields[4], 10, 64)
			us, _ := strconv.ParseInt(fields[5], 10, 64)
			sec := int((s*1_000_000 + us - start) / 1_000_000)
			k := key{sec, typ}
			lat, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil { // "failed" or "skipped" instead of a latency
				errs[k]++
				continue
			}
			if whole[typ] == nil {
				whole[typ] = hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
			}
			_ = whole[typ].RecordValue(max(lat, 1))
			if per[k] == nil {
				per[k] = hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
			}
			_ = per[k].RecordValue(max(lat, 1))
		}
		fh.Close()
	}
	run.Latency = map[string]*hdrhistogram.Snapshot{}
	for t, h := range whole {
		run.Latency[t] = h.Export()
	}
	keys := make([]key, 0, len(per))
	for k := range per {
		keys = append(keys, k)
	}
	for k := range errs {
		if per[k] == nil {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].sec != keys[j].sec {
			return keys[i].sec < keys[j].sec
		}
		return keys[i].typ < keys[j].typ
	})
	for _, k := range keys {
		iv := store.Interval{Second: k.sec, Length: 1, Type: k.typ, Errors: errs[k]}
		if h := per[k]; h != nil {
			iv.Count = h.TotalCount()
			iv.P50, iv.P95, iv.P99 = float64(h.ValueAtQuantile(50)), float64(h.ValueAtQuantile(95)), float64(h.ValueAtQuantile(99))
			iv.Max = float64(h.Max())
		}
		run.Series = append(run.Series, iv)
	}
	return nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
