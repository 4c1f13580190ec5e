package experiment

// The switchback design of an experiment step (issue 29 point 1): the glue
// between the plan and internal/switchback, which owns the design and its
// analysis.

import (
	"context"
	"fmt"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/workload"
	"math"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/switchback"
)

// Designs of a step.
const (
	DesignSeparate   = "separate runs"
	DesignSwitchback = "switchback"
)

// checkDesign defaults the design to separate runs and the switchback
// blocks to switchback's defaults, and checks them.
func (p *Plan) checkDesign() error {
	switch p.Design {
	case "", "separate":
		p.Design = "separate"
	case "auto":
	default:
		return fmt.Errorf("design %q: use separate or auto (switchback for settings that take effect on reload)", p.Design)
	}
	if p.Block == 0 && p.Settle == 0 {
		return nil // fitted to the step's machine time (switchbackDesign)
	}
	if p.Block == 0 {
		p.Block = switchback.DefaultBlock
	}
	if p.Settle == 0 {
		p.Settle = switchback.DefaultSettle
	}
	return switchback.Design{Block: p.Block, Settle: p.Settle, Pairs: 2}.Check()
}

// designFor is the design of a step, and why not switchback when not.
func designFor(p *Plan, step Step, major int) (string, string) {
	if p.Design != "auto" {
		return DesignSeparate, ""
	}
	if len(step.Layout) > 0 {
		return DesignSeparate, "a layout needs the data reloaded"
	}
	if step.Via == ViaPooler {
		return DesignSeparate, "a run's connections cannot switch data path"
	}
	for _, name := range sortedKeys(step.Values()) {
		if ok, why := settings.Switchable(name, major); !ok {
			return DesignSeparate, why
		}
	}
	return DesignSwitchback, ""
}

// switchbackDesign is a step's switchback run: the measured time the
// separate design would take (2 × duration per pair of runs, for the fixed
// pairs or, with auto, the most it may run), in the plan's blocks or, when
// it gives none, switchback.Fit's.
func (p *Plan) switchbackDesign() switchback.Design {
	pairs := p.Repetitions.Pairs
	if p.Repetitions.Auto {
		pairs = p.MaxRepetitions
	}
	total := time.Duration(2*pairs) * p.Duration
	if p.Block == 0 {
		return switchback.Fit(total)
	}
	return switchback.Design{Block: p.Block, Settle: p.Settle, Pairs: max(2, int(total/(2*p.Block)))}
}

// runSwitchback measures a step in one run alternating armA and armB
// (applied through apply, the experiment's one path for settings), after
// a checkpoint and a prewarm on armA, and judges it from the paired blocks.
func (e *Experiment) runSwitchback(ctx context.Context, sr *StepResult, armA, armB map[string]string, risk settings.Risk) error {
	p := e.Plan
	if _, err := restore.Apply(ctx, e.Server, armA); err != nil {
		return fmt.Errorf("step %q: applying the baseline: %w", sr.Name, err)
	}
	if _, err := Checkpoint(ctx, e.DSN); err != nil {
		e.logf("switchback run not aligned on a checkpoint: %v", err)
	}
	if p.Prewarm > 0 {
		if _, err := e.Workload.Run(ctx, e.DSN, workload.RunOptions{Duration: p.Prewarm}); err != nil {
			return fmt.Errorf("step %q: prewarm run: %w", sr.Name, err)
		}
	}
	d := p.switchbackDesign()
	d.Seed = uint64(time.Now().UnixNano())
	// Every switch is confirmed by a fresh session before its time is
	// recorded: the block starts when the arm's settings are visible.
	var mismatch []string
	applyArm := func(ctx context.Context, values map[string]string) error {
		restarted, err := restore.Apply(ctx, e.Server, values)
		if err == nil && restarted {
			err = fmt.Errorf("the server restarted: a switchback run only takes settings that need a reload")
		}
		if err != nil {
			return err
		}
		missed, err := e.notInEffect(ctx, values)
		mismatch = append(mismatch, missed...)
		return err
	}
	var meter *collect.CPUMeter
	run := func(ctx context.Context, dur time.Duration) (time.Time, []float64, error) {
		meter = collect.StartCPU(e.serverPID(ctx))
		started := time.Now()
		res, err := e.Workload.Run(ctx, e.DSN, workload.RunOptions{Duration: dur, OnInterval: e.OnInterval})
		meter.Stop(time.Time{}, time.Time{})
		if err != nil {
			return started, nil, err
		}
		if !res.MeasureStart.IsZero() {
			started = res.MeasureStart
		}
		return started, res.PerSecond, nil
	}
	e.logf("%-20s switchback: %d pairs of %s blocks, %s settling dropped after each switch", sr.Name, d.Pairs, d.Block, d.Settle)
	res, err := switchback.Run(ctx, d, armA, armB, applyArm, run)
	sr.Switchback = res
	if err != nil {
		return fmt.Errorf("step %q, switchback run: %w", sr.Name, err)
	}
	blockCPU(res, meter)
	blockCovariates(res, meter)
	judgeSwitchback(sr, p.Level(), risk)
	if len(mismatch) > 0 {
		sr.InEffect = false
		decide(sr, mismatch, risk)
	}
	e.logVerdict(*sr, "block pairs")
	return nil
}

// notInEffect is what of values a fresh session does not see (as a new
// backend of the workload would see it), asked up to four times half a
// second apart: the reload reaches the postmaster asynchronously.
func (e *Experiment) notInEffect(ctx context.Context, values map[string]string) ([]string, error) {
	names := sortedKeys(values)
	var mismatch []string
	for try := 0; try < 4; try++ {
		if try > 0 {
			time.Sleep(500 * time.Millisecond)
		}
		c, err := connectExcept(ctx, e.DSN, names)
		if err != nil {
			return nil, err
		}
		live, _, err := settings.ReadServer(ctx, c, names...)
		c.Close(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		mismatch = mismatch[:0]
		for _, name := range names {
			if l, ok := live[name]; !ok || !l.Same(values[name]) {
				mismatch = append(mismatch, fmt.Sprintf("%s (wanted %s)", name, secret.Redact(name, values[name])))
			}
		}
		if len(mismatch) == 0 {
			return nil, nil
		}
	}
	return mismatch, nil
}

// serverPID is the postmaster of the experiment's server when it runs on
// this host (collect.ServerPID), else 0.
func (e *Experiment) serverPID(ctx context.Context) int {
	conn, err := adminconn.Connect(ctx, e.DSN)
	if err != nil {
		return 0
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return collect.ServerPID(ctx, conn)
}

// blockCPU gives each measured block the server's and the driver's CPU over
// its seconds, when the server's CPU could be read. /proc counts in clock
// ticks (10 ms): a block whose server used less than one reads 0, keeps
// CPU 0 and is left out of work per CPU (switchback.PerCPU).
func blockCPU(res *switchback.Result, meter *collect.CPUMeter) {
	if meter == nil {
		return
	}
	for i, b := range res.Blocks {
		if b.Seconds == 0 {
			continue
		}
		u := meter.Within(b.Window(res.Start))
		if u.Server > 0 {
			res.Blocks[i].CPU = u.Server + u.Driver
		}
	}
}

// judgeSwitchback fills a switchback step's throughput and work per CPU
// (each block's transactions over its CPU time) and its verdict.
func judgeSwitchback(sr *StepResult, level float64, risk settings.Risk) {
	var a, b []float64
	for _, bl := range sr.Switchback.Blocks {
		if bl.Seconds == 0 {
			continue
		}
		if bl.Arm == switchback.B {
			b = append(b, bl.PerSec)
		} else {
			a = append(a, bl.PerSec)
		}
	}
	sr.BaselineTPS, _ = meanSD(a)
	sr.StepTPS, _ = meanSD(b)
	of := switchback.Throughput
	if sr.Objective == ObjectivePerCPU {
		of = switchback.PerCPU
	}
	_, adj := switchback.EstimateAdjusted(sr.Switchback.Blocks, level, of, CovariateOrder) // issue 29.2
	sr.Adjusted = &adj
	sr.Throughput = switchback.Estimate(sr.Switchback.Blocks, level)
	sr.WorkPerCPU = switchback.EstimateOf(sr.Switchback.Blocks, level, switchback.PerCPU)
	sr.InEffect = !math.IsNaN(sr.BaselineTPS)
	sr.StoppedBy = fmt.Sprintf("switchback: %d pairs of blocks", sr.Switchback.Design.Pairs)
	decide(sr, nil, risk)
}
