package pgbench

import (
	"fmt"
	"math"
)

// SimpleStats is pgbench's running summary of a measure (latency and lag in
// microseconds; a command's latency in seconds).
type SimpleStats struct {
	Count     int64
	Min, Max  float64
	Sum, Sum2 float64
}

// Add accounts one value.
func (s *SimpleStats) Add(v float64) {
	if s.Count == 0 || v < s.Min {
		s.Min = v
	}
	if s.Count == 0 || v > s.Max {
		s.Max = v
	}
	s.Count++
	s.Sum += v
	s.Sum2 += v * v
}

// Merge adds another summary.
func (s *SimpleStats) Merge(o SimpleStats) {
	if o.Count == 0 {
		return
	}
	if s.Count == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	if s.Count == 0 || o.Max > s.Max {
		s.Max = o.Max
	}
	s.Count += o.Count
	s.Sum += o.Sum
	s.Sum2 += o.Sum2
}

// Stats are the transactions of a run, a script or an aggregation interval,
// counted as pgbench counts them: Count is the successful ones; a failed one
// is a serialization or deadlock failure that was not retried successfully.
type Stats struct {
	StartUs               int64 // interval start, for --aggregate-interval (epoch microseconds)
	Count                 int64
	Skipped               int64
	Retries               int64
	Retried               int64
	SerializationFailures int64
	DeadlockFailures      int64
	Latency               SimpleStats // microseconds
	Lag                   SimpleStats // microseconds
}

// Failures is the failed transactions.
func (s Stats) Failures() int64 { return s.SerializationFailures + s.DeadlockFailures }

// all is every transaction: successful, skipped and failed.
func (s Stats) all() int64 { return s.Count + s.Skipped + s.Failures() }

// CommandStats are one script command's measures for -r.
type CommandStats struct {
	FirstLine string      // the command as -r shows it
	Latency   SimpleStats // seconds
	Failures  int64
	Retries   int64
}

// ScriptStats are one script's measures.
type ScriptStats struct {
	Stats
	Commands []CommandStats
}

// Results are what a run measured, with the options and table information
// that decide what pgbench prints about it.
type Results struct {
	Options         *Options
	Table           TableInfo
	Total           Stats
	Scripts         []ScriptStats // as Options.Scripts
	BenchDurationUs int64         // benchmarking time
	ConnTotalUs     int64         // -C: all connections' time
	ConnElapsedUs   int64         // without -C: the initial connections' time
	LatencyLate     int64         // transactions above -L
	Aborted         bool          // a client aborted: exit 2 after the summary
}

// cdouble prints as pgbench's printf does: PostgreSQL's own snprintf
// (src/port/snprintf.c) writes "NaN", "Infinity" and "-Infinity", where Go
// writes NaN and +Inf.
type cdouble float64

func (d cdouble) Format(f fmt.State, verb rune) {
	v := float64(d)
	text := ""
	switch {
	case math.IsNaN(v):
		text = "NaN"
	case math.IsInf(v, 1):
		text = "Infinity"
	case math.IsInf(v, -1):
		text = "-Infinity"
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), v)
		return
	}
	w, _ := f.Width()
	fmt.Fprintf(f, "%*s", w, text)
}
