package pgbench

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var progressRe = regexp.MustCompile(`^progress: ([0-9.]+) s, ([0-9.]+) tps, lat ([0-9.]+) ms stddev ([0-9.]+|-nan|NaN), (\d+) failed(?:, lag ([0-9.]+) ms)?(?:, (\d+) skipped)?(?:, (\d+) retried, (\d+) retries)?$`)

// TestProgressLineGolden: every progress line of the recorded runs, built
// back from its numbers with the run's options, is pgbench's line.
func TestProgressLineGolden(t *testing.T) {
	seen := 0
	for _, g := range goldenRuns {
		o, _ := goldenRun(t, g.name)
		errText, _ := os.ReadFile(filepath.Join("testdata", "golden", g.name+".err"))
		for _, line := range strings.Split(string(errText), "\n") {
			m := progressRe.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			seen++
			if got := ProgressLine(progressFrom(o, m)); got != line {
				t.Errorf("%s:\n got %s\nwant %s", g.name, got, line)
			}
		}
	}
	if seen < 2 {
		t.Errorf("only %d progress lines in the golden runs", seen)
	}
}

// progressFrom makes a report that prints the numbers m holds: ten seconds
// since the last one, so that tps*10 transactions give tps exactly.
func progressFrom(o *Options, m []string) Progress {
	cnt := int64(math.Round(num(m[2]) * 10))
	lat, sd := num(m[3])*1000, num(m[4])*1000
	p := Progress{NowUs: 100_000_000, LastUs: 90_000_000, Timestamp: o.ProgressTimestamp,
		Throttled: o.Rate > 0, LatencyLim: o.LatencyLimitUs > 0, RetriesShow: o.MaxTries != 1}
	p.StartUs = p.NowUs - int64(math.Round(num(m[1])*1e6))
	p.NowEpochUs = int64(math.Round(num(m[1]) * 1e6))
	p.Now.Count = cnt
	p.Now.Latency = SimpleStats{Count: cnt, Sum: lat * float64(cnt), Sum2: float64(cnt) * (sd*sd + lat*lat)}
	p.Now.SerializationFailures = atoi64(m[5])
	if m[6] != "" {
		p.Now.Lag.Sum = num(m[6]) * 1000 * float64(cnt)
	}
	p.Now.Skipped, p.Now.Retried, p.Now.Retries = atoi64(m[7]), atoi64(m[8]), atoi64(m[9])
	return p
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// TestLogLinesGolden: every -l and --aggregate-interval line of the recorded
// runs, built back from its fields, is pgbench's line.
func TestLogLinesGolden(t *testing.T) {
	for _, name := range []string{"log", "aggregate", "conflicts-log", "conflicts-aggregate"} {
		o, _ := goldenRun(t, name)
		text, err := os.ReadFile(filepath.Join("testdata", "golden", name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		for _, line := range lines {
			f := strings.Fields(line)
			var got string
			if o.AggregateInterval > 0 {
				got = AggregateLogLine(aggregateFrom(f), o.Rate > 0, o.LatencyLimitUs > 0, o.MaxTries != 1, o.FailuresDetailed)
			} else {
				got = TxLogLine(txFrom(f, o), o.Rate > 0, o.MaxTries != 1)
			}
			if got != line {
				t.Errorf("%s:\n got %s\nwant %s", name, got, line)
			}
		}
		if len(lines) < 2 {
			t.Errorf("%s: only %d log lines", name, len(lines))
		}
	}
}

func txFrom(f []string, o *Options) TxLogEntry {
	e := TxLogEntry{Client: int(atoi64(f[0])), Transaction: atoi64(f[1]), Script: int(atoi64(f[3])),
		EpochUs: atoi64(f[4])*1000000 + atoi64(f[5])}
	if lat, err := strconv.ParseFloat(f[2], 64); err == nil {
		e.LatencyUs = lat
	} else {
		e.Result = f[2]
	}
	rest := f[6:]
	if o.Rate > 0 {
		e.LagUs, rest = num(rest[0]), rest[1:]
	}
	if o.MaxTries != 1 {
		e.Retries = int(atoi64(rest[0]))
	}
	return e
}

func aggregateFrom(f []string) Stats {
	n := make([]float64, len(f))
	for i := range f {
		n[i] = num(f[i])
	}
	return Stats{StartUs: int64(n[0]) * 1000000, Count: int64(n[1]),
		Latency: SimpleStats{Count: int64(n[1]), Sum: n[2], Sum2: n[3], Min: n[4], Max: n[5]},
		Lag:     SimpleStats{Count: int64(n[1]), Sum: n[6], Sum2: n[7], Min: n[8], Max: n[9]},
		Skipped: int64(n[10]), Retried: int64(n[11]), Retries: int64(n[12]),
		SerializationFailures: int64(n[13]), DeadlockFailures: int64(n[14])}
}
