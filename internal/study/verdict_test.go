package study

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// drifting is a builds study on a machine whose speed moves ±15% between
// repetitions (as this machine kind's does): default's runs at the
// machine's speed, o3's 5% faster than the machine at its time, run in
// between (give or take 1%), and default's closing run.
func drifting() []Run {
	speed := []float64{100, 130, 90, 120, 105, 95}
	noise := []float64{1.01, 0.99, 1.005, 0.995, 1}
	var runs []Run
	for rep := 1; rep <= 5; rep++ {
		runs = append(runs, Run{Major: 15, Build: "default", Repetition: rep, TPS: speed[rep-1]})
		runs = append(runs, Run{Major: 15, Build: "o3", Repetition: rep, TPS: 1.05 * noise[rep-1] * math.Sqrt(speed[rep-1]*speed[rep])})
	}
	return append(runs, Run{Major: 15, Build: "default", Repetition: 6, TPS: speed[5]})
}

// TestVerdictPairsRepetitions: each o3 run against the default runs before
// and after it recovers +5% through the drift, which the means of the same
// runs cannot resolve; the text says which method judged and its MDE.
func TestVerdictPairsRepetitions(t *testing.T) {
	c := Compare("tpcc", nil, drifting())
	if len(c.Verdicts) != 1 {
		t.Fatalf("verdicts %+v", c.Verdicts)
	}
	v := c.Verdicts[0]
	if v.Method != MethodPaired || v.Pairs != 5 || v.Says != "faster" || math.Abs(v.Change-5) > 0.1 || v.Low > 5 || v.High < 5 || v.MDE <= 0 {
		t.Errorf("verdict %+v, want paired over 5 pairs, faster by 5%% with 5%% inside its interval", v)
	}
	base, arm := c.Runs[0:0], c.Runs[0:0]
	for _, r := range c.Runs {
		if r.Build == "default" {
			base = append(base, r)
		} else {
			arm = append(arm, r)
		}
	}
	if w := welch("build o3", "build default", tpsOf(base), tpsOf(arm)); w.Says != "no clear difference" {
		t.Errorf("the means of the same runs: %+v; the drift should hide the 5%%", w)
	}
	var b bytes.Buffer
	c.WriteText(&b)
	if !strings.Contains(b.String(), "faster (paired, 5 pairs, each run against build default's before and after it; MDE ±") {
		t.Errorf("the text does not say how it judged:\n%s", b.String())
	}
	t.Log("\n" + b.String())
}

// TestVerdictUnpairable: runs that are not the study's interleaved
// repetitions (one missing, or one run each) fall back as they must.
func TestVerdictUnpairable(t *testing.T) {
	runs := drifting()
	missing := append(append([]Run{}, runs[:3]...), runs[4:]...) // default's repetition 2 gone
	if v := Compare("tpcc", nil, missing).Verdicts[0]; v.Method != MethodWelch || v.Pairs != 0 {
		t.Errorf("a missing repetition: %+v, want Welch", v)
	}
	one := Compare("tpcc", nil, runs[:2]).Verdicts[0]
	if one.HasCI || !strings.HasPrefix(one.Says, "one run each") {
		t.Errorf("one run each: %+v, want no interval", one)
	}
}

func TestRepetitionLabelNamesTheClosingRun(t *testing.T) {
	if got := repetitionLabel(2, 2); got != "2" {
		t.Errorf("repetition 2 of 2: %q", got)
	}
	if got := repetitionLabel(3, 2); !strings.HasPrefix(got, "3 (closing run") {
		t.Errorf("repetition 3 of 2: %q", got)
	}
}
