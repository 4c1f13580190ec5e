package experiment

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// WriteText writes the report for a person: what ran, then per step the
// settings with their risk, the runs, the effect with its interval, p99,
// stability and the verdict. Unsafe settings are flagged at the top and next
// to the value.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	name := r.Plan
	if name == "" {
		name = "(unnamed plan)"
	}
	perStep := r.Repetitions + " A/B pairs"
	if r.Repetitions == "auto" {
		perStep = fmt.Sprintf("2 to %d A/B pairs (auto)", r.MaxRepetitions)
	}
	fmt.Fprintf(&b, "experiment %q on %s: %s, %s of %s runs per step", name, r.Server, r.Workload, perStep, r.Duration)
	if r.Prewarm > 0 {
		fmt.Fprintf(&b, ", %s prewarm before each run", r.Prewarm)
	}
	b.WriteString("\n")
	if len(r.Unsafe) > 0 {
		fmt.Fprintf(&b, "UNSAFE SETTINGS USED (--allow-unsafe): %s\n", strings.Join(r.Unsafe, "; "))
	}
	fmt.Fprintf(&b, "baseline: %s\n", Pairs(r.Baseline, r.Layout))
	for i, s := range r.Steps {
		fmt.Fprintf(&b, "\nstep %d %q: %s\n", i+1, s.Name, Pairs(s.Settings, s.Layout))
		for _, p := range s.Settings {
			fmt.Fprintf(&b, "  %s: %s — %s\n", p.Name, p.Risk, p.Why)
		}
		if sb := s.Switchback; sb != nil {
			fmt.Fprintf(&b, "  design: switchback, one run alternating baseline and step: %d pairs of %s blocks in random order, %s dropped after each switch (%d blocks measured)\n",
				sb.Design.Pairs, sb.Design.Block, sb.Design.Settle, len(sb.Blocks))
		} else if s.DesignWhy != "" {
			fmt.Fprintf(&b, "  design: separate runs (%s)\n", s.DesignWhy)
		}
		for _, run := range s.Runs {
			writeRunLine(&b, run)
		}
		if unmeasured(&b, s) {
			continue
		}
		t := s.Throughput
		if t.Valid {
			fmt.Fprintf(&b, "  throughput: %.1f → %.1f tps, %+.1f%% (%s CI %+.1f%% .. %+.1f%%; %d pairs, %s noise)\n",
				s.BaselineTPS, s.StepTPS, t.Percent, levelText(t.Level), t.Low, t.High, t.Pairs, t.Noise)
			fmt.Fprintf(&b, "  minimum detectable effect: ±%.1f%% (%s confidence, 80%% power)\n", t.MDE, levelText(t.Level))
		}
		if c := s.WorkPerCPU; c.Valid {
			fmt.Fprintf(&b, "  work per CPU (server+driver): %+.1f%% (%s CI %+.1f%% .. %+.1f%%; MDE ±%.1f%%)\n", c.Percent, levelText(c.Level), c.Low, c.High, c.MDE)
		}
		b.WriteString(adjustedLines(s)) // issue 29.2
		if s.StoppedBy != "" {
			fmt.Fprintf(&b, "  pairs: %d, stopped: %s\n", t.Pairs, s.StoppedBy)
		}
		if s.Switchback != nil {
			writeSwitchbackTail(&b, s)
			continue
		}
		p99 := ""
		if s.P99.Valid {
			p99 = fmt.Sprintf(" (%+.1f%%, CI %+.1f%% .. %+.1f%%)", s.P99.Percent, s.P99.Low, s.P99.High)
		}
		fmt.Fprintf(&b, "  p99: %s → %s%s;  per-second stability (CV): %.3f → %.3f\n",
			s.BaselineP99.Round(10*time.Microsecond), s.StepP99.Round(10*time.Microsecond), p99, s.BaselineCV, s.StepCV)
		if s.InEffect {
			b.WriteString("  in effect: every setting read back from pg_settings during every run\n")
		}
		fmt.Fprintf(&b, "  verdict (objective %s): %s\n", judgedName(s), s.Summary)
	}
	if r.Method != "" {
		fmt.Fprintf(&b, "\nmethod: %s\n", r.Method)
	}
	if r.StopRule != "" {
		fmt.Fprintf(&b, "pairs (repetitions: auto): %s\n", r.StopRule)
	}
	b.WriteString("adjustment: " + AdjustMethod + "\n")
	if r.Restored {
		b.WriteString("\nthe server's original settings were restored\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// unmeasured reports whether a step has no effect to show: none of its
// runs (never started: nothing to say), or a stop before its first step
// run (a line saying so on b, not an empty verdict).
func unmeasured(b *strings.Builder, s StepResult) bool {
	switch {
	case s.Switchback != nil:
		return false
	case len(s.Runs) == 0:
		return true
	case !slices.ContainsFunc(s.Runs, func(r RunRecord) bool { return r.Arm == ArmStep }):
		b.WriteString("  no step run finished: nothing to compare (the experiment stopped first)\n")
		return true
	}
	return false
}

// writeSwitchbackTail ends a switchback step: how its settings were checked
// and its verdict (no p99 or stability: the blocks keep per-second counts only).
func writeSwitchbackTail(b *strings.Builder, s StepResult) {
	if s.InEffect {
		b.WriteString("  in effect: every switch read back from pg_settings by a fresh session before its block began\n")
	}
	fmt.Fprintf(b, "  verdict (objective %s): %s\n", judgedName(s), s.Summary)
	b.WriteString("  method: each pair of adjacent blocks gives log(step/baseline); the effect is the mean of the two orders' means (a linear drift adds +d to one order and −d to the other), its interval Student t on the residual spread (pairs − 2 degrees of freedom)\n")
}

// writeRunLine writes one measured run of a step, with what was unusual
// about it (restarted, reloaded, not started on a checkpoint, settings not in
// effect) in parentheses.
func writeRunLine(b *strings.Builder, run RunRecord) {
	flags := []string{}
	if run.Restarted {
		flags = append(flags, "restarted")
	}
	if run.Reloaded {
		flags = append(flags, "data reloaded")
	}
	if run.Checkpoint == "" {
		flags = append(flags, "not started on a checkpoint")
	}
	if len(run.Mismatch) > 0 {
		flags = append(flags, "NOT IN EFFECT: "+strings.Join(run.Mismatch, ", "))
	}
	note := ""
	if len(flags) > 0 {
		note = " (" + strings.Join(flags, "; ") + ")"
	}
	cpu := ""
	if m := run.Measurement; m.ServerCPU > 0 {
		cpu = fmt.Sprintf("  %.0f txn/CPU-s (server %.1f, driver %.1f CPU-s)", m.PerCPU(), m.ServerCPU.Seconds(), m.DriverCPU.Seconds())
	}
	if m := run.Measurement; len(m.SpeedProbe) > 0 {
		lo, hi := slices.Min(m.SpeedProbe), slices.Max(m.SpeedProbe)
		cpu += fmt.Sprintf("  steal %.1fs, CPU probe %s..%s", m.Steal.Seconds(), lo.Round(10*time.Microsecond), hi.Round(10*time.Microsecond))
	}
	fmt.Fprintf(b, "  %-8s #%d  %9.1f tps  p99 %-9s cv %.3f  WAL %s%s%s\n", run.Arm, run.Repetition, run.TPS,
		run.Measurement.P99.Round(10*time.Microsecond), run.CV, host.HumanBytes(run.WALBytes), cpu, note)
}

// Pairs writes "name=value [risk]" for each setting and "layout k=v".
func Pairs(ps []settings.Pair, layout workload.Layout) string {
	var parts []string
	for _, p := range ps {
		s := fmt.Sprintf("%s=%s [%s]", p.Name, p.Value, p.Risk)
		if tag := settings.Tag(p.Risk); tag != "" {
			s = fmt.Sprintf("%s=%s %s", p.Name, p.Value, tag)
		}
		parts = append(parts, s)
	}
	for _, k := range sortedKeys(layout) {
		parts = append(parts, fmt.Sprintf("layout %s=%s [data reloaded]", k, layout[k]))
	}
	if len(parts) == 0 {
		return "(server as configured)"
	}
	return strings.Join(parts, ", ")
}
