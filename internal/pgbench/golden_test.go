package pgbench

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSummaryGolden formats what each recorded real pgbench 15 run measured
// (testdata/golden, see TestRecordGolden) and wants pgbench's stdout byte
// for byte. The options come from our Parse of the recorded command line, so
// which lines appear is decided by WriteSummary alone; only the measured
// numbers are read back from pgbench's output.
func TestSummaryGolden(t *testing.T) {
	for _, g := range goldenRuns {
		t.Run(g.name, func(t *testing.T) {
			o, out := goldenRun(t, g.name)
			banner, want, _ := strings.Cut(out, "\n")
			if got := VersionLine("15.18 (Debian 15.18-0+deb12u1)", ""); got != banner {
				t.Errorf("version line %q, want %q", got, banner)
			}
			r := measured(t, o, want)
			var got bytes.Buffer
			WriteSummary(&got, r)
			if got.String() != want {
				t.Errorf("summary:\n%s\nwant\n%s", got.String(), want)
			}
		})
	}
}

func goldenRun(t *testing.T, name string) (*Options, string) {
	t.Helper()
	args, err := os.ReadFile(filepath.Join("testdata", "golden", name+".args"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join("testdata", "golden", name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	o, err := Parse(strings.Fields(strings.ReplaceAll(string(args), "LOGDIR", t.TempDir())), Env{Stderr: &stderr, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("%s: %v %s", args, err, stderr.String())
	}
	return o, string(out)
}

var (
	numberRe      = `(-?[0-9.]+|-nan|NaN|inf)`
	summaryLine   = regexp.MustCompile(`^( - )?(.*?)(?:: | = )` + numberRe + `(?:/\d+)?(?: ms| \(| s|$)`)
	lagLine       = regexp.MustCompile(`^rate limit schedule lag: avg ` + numberRe + ` \(max ` + numberRe + `\) ms`)
	tpsLine       = regexp.MustCompile(`tps = ([0-9.]+)\)?`)
	scriptCount   = regexp.MustCompile(`^ - (\d+) transactions \(`)
	partitionLine = regexp.MustCompile(`^partition method: (\w+)$`)
	commandLine   = regexp.MustCompile(`^   ([ 0-9.-]{11})  ([ 0-9]{10})(?:  ([ 0-9]{10}))?  (.*)$`)
)

// measured reads back the numbers a run measured from pgbench's summary:
// counts as printed, latencies and lag as sums that print the same, and the
// benchmark duration as the one integer number of microseconds that gives
// every printed tps and average.
func measured(t *testing.T, o *Options, out string) *Results {
	r := &Results{Options: o, Scripts: make([]ScriptStats, len(o.Scripts))}
	stats := &r.Total
	var tps []string
	var avgFromDuration string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if m := commandLine.FindStringSubmatch(line); m != nil {
			s := &r.Scripts[max(scriptIndex(stats, r), 0)]
			ms := num(m[1])
			c := CommandStats{FirstLine: m[4], Latency: SimpleStats{Count: 1, Sum: ms / 1000}, Failures: int64(num(m[2]))}
			if m[3] != "" {
				c.Retries = int64(num(m[3]))
			}
			s.Commands = append(s.Commands, c)
			continue
		}
		if m := lagLine.FindStringSubmatch(line); m != nil {
			stats.Lag = SimpleStats{Count: stats.Count, Sum: num(m[1]) * 1000 * float64(stats.Count), Max: num(m[2]) * 1000}
			continue
		}
		if m := tpsLine.FindStringSubmatch(line); m != nil {
			tps = append(tps, m[1])
		}
		if m := scriptCount.FindStringSubmatch(line); m != nil {
			stats.Count = int64(num(m[1]))
		}
		if m := partitionLine.FindStringSubmatch(line); m != nil {
			r.Table.PartitionMethod = m[1]
			continue
		}
		if strings.HasPrefix(line, "SQL script ") {
			i, _ := strconv.Atoi(strings.Fields(line)[2][:len(strings.Fields(line)[2])-1])
			stats = &r.Scripts[i-1].Stats
			continue
		}
		if m := summaryLine.FindStringSubmatch(line); m != nil {
			if v := assign(r, stats, m[2], m[3]); v != "" {
				avgFromDuration = v
			}
		}
	}
	r.BenchDurationUs = solveDuration(t, r, tps, avgFromDuration)
	return r
}

// scriptIndex is the script whose block is being read: the one stats points
// into, or the only one.
func scriptIndex(stats *Stats, r *Results) int {
	for i := range r.Scripts {
		if stats == &r.Scripts[i].Stats {
			return i
		}
	}
	return 0
}

// assign stores one "name: value" of the summary; it returns the latency
// average when that is the one pgbench computes from the duration.
func assign(r *Results, s *Stats, name, value string) string {
	v := num(value)
	n := int64(v)
	switch {
	case name == "scaling factor":
		r.Table.Scale = int(n)
	case name == "partitions":
		r.Table.Partitions = int(n)
	case name == "number of transactions actually processed":
		s.Count = n
	case name == "number of failed transactions":
		if !r.Options.FailuresDetailed {
			s.SerializationFailures = n
		}
	case name == "number of serialization failures":
		s.SerializationFailures = n
	case name == "number of deadlock failures":
		s.DeadlockFailures = n
	case name == "number of transactions retried":
		s.Retried = n
	case name == "total number of retries":
		s.Retries = n
	case name == "number of transactions skipped":
		s.Skipped = n
	case strings.HasPrefix(name, "number of transactions above"):
		r.LatencyLate = n
	case name == "latency average":
		if s == &r.Total && !(r.Options.Rate > 0 || r.Options.Progress > 0 || r.Options.LatencyLimitUs > 0) {
			return value
		}
		s.Latency = SimpleStats{Count: s.Count, Sum: v * 1000 * float64(s.Count)}
	case name == "latency stddev":
		avg := s.Latency.Sum / float64(s.Count)
		s.Latency.Sum2 = float64(s.Count) * (v*1000*v*1000 + avg*avg)
	case name == "initial connection time":
		r.ConnElapsedUs = int64(math.Round(v * 1000))
	case name == "average connection time":
		r.ConnTotalUs = int64(math.Round(v * 1000 * float64(s.Count+s.Failures())))
	}
	return ""
}

func num(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		panic(fmt.Sprintf("not a number: %q", s))
	}
	return v
}

// solveDuration finds the benchmark time, in whole microseconds as pgbench
// measures it, that prints every tps (total first, then per script) and the
// duration-based latency average.
func solveDuration(t *testing.T, r *Results, tps []string, avg string) int64 {
	t.Helper()
	est := int64(float64(r.Total.Count) * 1e6 / num(tps[0]))
	for d := est - 3; d <= est+3; d++ {
		ok := fmt.Sprintf("%f", float64(r.Total.Count)/(float64(d)/1e6)) == tps[0]
		for i, s := range r.Scripts {
			if i+1 < len(tps) {
				ok = ok && fmt.Sprintf("%f", float64(s.Count)/(float64(d)/1e6)) == tps[i+1]
			}
		}
		if avg != "" {
			ok = ok && fmt.Sprintf("%.3f", 0.001*float64(d)*float64(r.Options.Clients)/float64(r.Total.all())) == avg
		}
		if ok {
			return d
		}
	}
	t.Fatalf("no duration near %d µs prints tps %v and latency average %s", est, tps, avg)
	return 0
}
