package pgbench

import (
	"math"
	"strings"
)

// Progress is one -P report: the run's cumulated stats now and at the last
// report, and the times (microseconds; epoch-based under
// --progress-timestamp).
type Progress struct {
	Now, Last   Stats
	NowUs       int64 // when this report is made
	LastUs      int64 // when the last one was (the run's start for the first)
	StartUs     int64 // the run's start
	NowEpochUs  int64 // NowUs as Unix time, for --progress-timestamp
	Timestamp   bool  // --progress-timestamp
	Throttled   bool  // -R
	LatencyLim  bool  // -L
	RetriesShow bool  // --max-tries is not 1
}

// ProgressLine is pgbench's progress report line (without the newline).
func ProgressLine(p Progress) string {
	cnt := p.Now.Count - p.Last.Count
	run := float64(p.NowUs - p.LastUs)
	tps := 1e6 * float64(cnt) / run
	var latency, stddev, lag float64
	if cnt > 0 {
		latency = 0.001 * (p.Now.Latency.Sum - p.Last.Latency.Sum) / float64(cnt)
		sqlat := (p.Now.Latency.Sum2 - p.Last.Latency.Sum2) / float64(cnt)
		stddev = 0.001 * math.Sqrt(sqlat-1e6*latency*latency)
		lag = 0.001 * (p.Now.Lag.Sum - p.Last.Lag.Sum) / float64(cnt)
	}
	var when string
	if p.Timestamp {
		when = cfmt("%.3f s", float64(p.NowEpochUs)*0.000001)
	} else {
		when = cfmt("%.1f s", float64(p.NowUs-p.StartUs)/1e6)
	}
	var b strings.Builder
	b.WriteString(cfmt("progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %d failed",
		when, tps, latency, stddev, p.Now.Failures()-p.Last.Failures()))
	if p.Throttled {
		b.WriteString(cfmt(", lag %.3f ms", lag))
		if p.LatencyLim {
			b.WriteString(cfmt(", %d skipped", p.Now.Skipped-p.Last.Skipped))
		}
	}
	if p.RetriesShow {
		b.WriteString(cfmt(", %d retried, %d retries", p.Now.Retried-p.Last.Retried, p.Now.Retries-p.Last.Retries))
	}
	return b.String()
}
