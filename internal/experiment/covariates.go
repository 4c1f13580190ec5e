package experiment

// Covariates of a run or a switchback block (issue 29 point 2): what the
// neighbours, the CPU, the page cache and the server did while it was
// measured, and the step's effect adjusted for them (stats.Adjust).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/switchback"
)

// Covariates, in the order the adjustment considers them: first what only
// the host's neighbours can cause (a step cannot steal CPU from the
// hypervisor), then the page cache's re-reads, then what the server did,
// which a step may cause (stats.Adjust leaves out a covariate the step
// moves). Rates are per second of the measured window, so that runs and
// blocks of different lengths compare.
const (
	CovProbe       = "cpu_probe_ms"   // mean CPU time of the speed probe's unit (slower CPU: higher)
	CovSteal       = "steal_cpu_s"    // CPU-seconds per second given to other guests
	CovOthers      = "others_cpu_s"   // CPU-seconds per second of processes neither the server nor the driver
	CovRunQueue    = "run_queue"      // mean procs_running
	CovDiskRead    = "disk_read_mb_s" // MB per second read from disk by the host (pgpgin)
	CovWALPerTxn   = "wal_kb_per_txn" // WAL per committed transaction (full-page images after a checkpoint)
	CovCheckpoints = "checkpoints"    // checkpoints during the run
	CovAutovacuums = "autovacuums"    // autovacuum runs finished during the run
)

// CovariateOrder is the adjustment's fixed priority (tune's comparisons
// take the same).
var CovariateOrder = []string{CovProbe, CovSteal, CovOthers, CovRunQueue, CovDiskRead, CovWALPerTxn, CovCheckpoints, CovAutovacuums}

// hostCovariates are a CPU meter's covariates over a window of seconds.
func HostCovariates(u collect.CPUUse, seconds float64) map[string]float64 {
	c := map[string]float64{CovRunQueue: u.RunQueue}
	if seconds <= 0 {
		return c
	}
	c[CovSteal] = u.Steal.Seconds() / seconds
	c[CovDiskRead] = u.DiskRead / 1e6 / seconds
	if u.Server > 0 {
		c[CovOthers] = u.Others.Seconds() / seconds
	}
	if len(u.Probe) > 0 {
		var sum time.Duration
		for _, p := range u.Probe {
			sum += p
		}
		c[CovProbe] = float64(sum) / float64(len(u.Probe)) / float64(time.Millisecond)
	}
	return c
}

// serverActivity is what the server's statistics count: checkpoints and
// finished autovacuums (collect.DatabaseSnapshot's fourth and fifth
// columns). ok is false when they could not be read.
type serverActivity struct {
	checkpoints, autovacuums float64
	ok                       bool
}

// readActivity reads the server's counters (the statistics views lag by
// up to a second: a checkpoint at the run's very end may count in the next).
func readActivity(ctx context.Context, conn *pgx.Conn, major int) serverActivity {
	q, ok := collect.SQL(collect.DatabaseSnapshot, major)
	if !ok {
		return serverActivity{}
	}
	var v [8]float64
	if err := conn.QueryRow(ctx, q).Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]); err != nil {
		return serverActivity{}
	}
	return serverActivity{checkpoints: v[3], autovacuums: v[4], ok: true}
}

// serverCovariates adds the server's side of a run: its WAL per transaction
// and the checkpoints and autovacuums between before and after.
func serverCovariates(c map[string]float64, before, after serverActivity, wal int64, txns int64) {
	if txns > 0 {
		c[CovWALPerTxn] = float64(wal) / 1024 / float64(txns)
	}
	if before.ok && after.ok {
		c[CovCheckpoints] = after.checkpoints - before.checkpoints
		c[CovAutovacuums] = after.autovacuums - before.autovacuums
	}
}

// adjustRuns is the judged objective's effect over separate runs adjusted
// for the runs' covariates (nil when no run recorded any).
func adjustRuns(runs []RunRecord, objective string, unadjusted stats.Effect) *stats.Adjustment {
	var a, b []stats.Run
	for _, r := range runs {
		level := r.TPS
		if objective == ObjectivePerCPU {
			level = r.Measurement.PerCPU()
		}
		if r.Arm == ArmBaseline {
			a = append(a, stats.Run{Level: level})
		} else {
			b = append(b, stats.Run{Level: level})
		}
	}
	if len(b) == 0 || len(a) != len(b)+1 {
		return nil
	}
	var cands []stats.Covariate
	for _, name := range CovariateOrder {
		if ca, cb, ok := covariateOf(runs, name); ok {
			cands = append(cands, stats.Covariate{Name: name, Diff: stats.PairDiffs(ca, cb)})
		}
	}
	if len(cands) == 0 {
		return nil
	}
	adj := stats.AdjustPaired(a, b, cands, unadjusted)
	return &adj
}

// covariateOf is a covariate's value in each baseline and each step run;
// false unless every run recorded it.
func covariateOf(runs []RunRecord, name string) (base, step []float64, ok bool) {
	for _, r := range runs {
		v, ok := r.Covariates[name]
		if !ok {
			return nil, nil, false
		}
		if r.Arm == ArmBaseline {
			base = append(base, v)
		} else {
			step = append(step, v)
		}
	}
	return base, step, true
}

// blockCovariates gives each measured block the host's covariates over its
// seconds (the server's are per run: the statistics views are not read
// while the switchback run goes).
func blockCovariates(res *switchback.Result, meter *collect.CPUMeter) {
	if meter == nil {
		return
	}
	for i, b := range res.Blocks {
		if b.Seconds == 0 {
			continue
		}
		res.Blocks[i].Covariates = HostCovariates(meter.Within(b.Window(res.Start)), float64(b.Seconds))
	}
}

// adjustmentText is the report's line on the adjustment: the covariates
// used and why the others were left out.
func adjustmentText(a *stats.Adjustment) string {
	if a == nil {
		return "no covariates recorded"
	}
	used := "none"
	if len(a.Used) > 0 {
		var parts []string
		for i, n := range a.Used {
			parts = append(parts, fmt.Sprintf("%s (%+.3g)", n, a.Coef[i]))
		}
		used = strings.Join(parts, ", ")
	}
	s := "covariates used: " + used
	if len(a.Left) > 0 {
		s += "; left out: " + strings.Join(a.Left, "; ")
	}
	return s
}

// adjustedLines are the report's lines on the adjustment: the judged
// objective before and after, with both intervals, and the covariates.
func adjustedLines(sr StepResult) string {
	a := sr.Adjusted
	if a == nil {
		return ""
	}
	u, e := sr.Unadjusted(), a.Effect
	if !u.Valid {
		return ""
	}
	s := fmt.Sprintf("  %s before adjustment: %+.1f%% (%s CI %+.1f%% .. %+.1f%%; MDE ±%.1f%%)\n", sr.Objective, u.Percent, levelText(u.Level), u.Low, u.High, u.MDE)
	if len(a.Used) > 0 {
		s += fmt.Sprintf("  %s adjusted for covariates: %+.1f%% (%s CI %+.1f%% .. %+.1f%%; MDE ±%.1f%%; %s noise)\n", sr.Objective, e.Percent, levelText(e.Level), e.Low, e.High, e.MDE, e.Noise)
	} else {
		s += fmt.Sprintf("  %s adjusted for covariates: not adjusted (no covariate passed the guards)\n", sr.Objective)
	}
	return s + "  " + adjustmentText(a) + "\n"
}

// judgedName says what the verdict judged: "tps" or "tps adjusted for
// cpu_probe_ms, others_cpu_s".
func judgedName(sr StepResult) string {
	if a := sr.Adjusted; a != nil && len(a.Used) > 0 {
		return sr.Objective + " adjusted for " + strings.Join(a.Used, ", ")
	}
	return sr.Objective
}

// AdjustMethod says how the adjustment works and what it decides, for the
// report's footnote.
const AdjustMethod = "each pair's log ratio is regressed on the pair's covariate differences (step less its neighbouring baselines; for switchback blocks B less A, with the pair's order), " +
	"the intercept is the effect with the covariates equal in both arms (CUPED on paired data, stats.Adjust); covariates are taken in a fixed order (CPU probe, steal, the neighbours' CPU, run queue, disk reads, WAL per transaction, checkpoints, autovacuums), " +
	"one per three pairs at most, leaving out any that did not vary, repeat another, or that the step moves (t test, 99.9%); " +
	"the verdict and the stop rule of repetitions: auto judge the adjusted interval when a covariate was used, else the unadjusted one"
