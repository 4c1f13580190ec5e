package doctor

import (
	"fmt"
	"strings"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/host"
)

// RunFindings turns a past run's evidence into findings.
func RunFindings(p advise.PastRun) []Finding {
	area := "run " + p.ID
	var out []Finding
	if p.CheckpointsRequested+p.CheckpointsTimed > 0 {
		ev := fmt.Sprintf("during the %.0fs run: %d requested and %d timed checkpoints; WAL %s/s on average, %s/s at peak",
			p.Seconds, p.CheckpointsRequested, p.CheckpointsTimed, host.HumanBytes(int64(p.WALBytesPerSecond)), host.HumanBytes(int64(p.WALPeakPerSecond)))
		f := Finding{ID: "run-checkpoints", Area: area, Severity: SeverityOK, Title: "checkpoints during the run were timed",
			Evidence: ev, Why: "timed checkpoints keep full-page images and write bursts down", Fix: "none", Confidence: ConfidenceHigh}
		if p.CheckpointsRequested > 0 {
			f.Severity, f.Title = SeverityProblem, "the run forced checkpoints by WAL volume"
			f.Why = "each requested checkpoint came before checkpoint_timeout because max_wal_size filled up"
			f.Fix = fmt.Sprintf("size max_wal_size from this run: 'pgoltp advise --run %s'", p.ID)
		}
		out = append(out, f)
	}
	if p.FPIShare >= 0 {
		f := Finding{ID: "run-wal-fpi", Area: area, Severity: SeverityOK, Title: "few full-page images during the run",
			Evidence: fmt.Sprintf("%.1f%% of WAL records carried full-page images", 100*p.FPIShare), Why: "checkpoints were far enough apart", Fix: "none", Confidence: ConfidenceMedium}
		if p.FPIShare > 0.1 {
			f.Severity, f.Title = SeverityWarning, "full-page images were a large part of the run's WAL"
			f.Why = "after each checkpoint the first change of every page logs the whole page"
			f.Fix = "longer checkpoint_timeout with max_wal_size to match; wal_compression"
		}
		out = append(out, f)
	}
	if p.BackendWriteShare >= 0.2 {
		out = append(out, Finding{ID: "run-backend-writes", Area: area, Severity: SeverityWarning, Title: "backends wrote dirty buffers during the run",
			Evidence: fmt.Sprintf("%.0f%% of buffer writes were done by client backends", 100*p.BackendWriteShare),
			Why:      "those writes landed in transaction latency", Fix: "a more aggressive background writer; a larger shared_buffers", Confidence: ConfidenceMedium})
	}
	var low []string
	for _, t := range p.Tables {
		if t.Updates >= 1000 && t.HOTRatio() < 0.5 {
			low = append(low, fmt.Sprintf("%s %.0f%% HOT of %d updates", t.Name, 100*t.HOTRatio(), t.Updates))
		}
	}
	if len(low) > 0 {
		out = append(out, Finding{ID: "run-hot-updates", Area: area, Severity: SeverityWarning, Title: "the run's updates were mostly not HOT",
			Evidence: strings.Join(low, "; "), Why: "non-HOT updates insert into every index",
			Fix: "lower fillfactor on these tables (measure with an experiment 'layout' step)", Confidence: ConfidenceMedium})
	}
	var total int64
	for _, w := range p.Waits {
		total += w.Samples
	}
	if total > 0 {
		var parts []string
		for i, w := range p.Waits {
			if i == 5 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s:%s %.0f%%", w.Type, w.Event, 100*float64(w.Samples)/float64(total)))
		}
		top := p.Waits[0]
		f := Finding{ID: "run-wait-events", Area: area, Severity: SeverityInfo, Title: "where the run's backends spent their time",
			Evidence: strings.Join(parts, ", "), Why: "the dominant wait names the bottleneck", Fix: "none needed", Confidence: ConfidenceMedium}
		key := top.Type + ":" + top.Event
		if top.Type == "CPU" {
			key = "CPU"
		}
		if float64(top.Samples) >= 0.3*float64(total) {
			f.Severity, f.Title = SeverityWarning, "the run's backends mostly waited on "+key
			f.Fix, f.Why = waitAdvice(key)
		}
		out = append(out, f)
	}
	return out
}
