package sweep

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// Every repetition runs every value once, in an order of its own.
func TestOrderIsRandomisedBlocks(t *testing.T) {
	values := []int{1, 2, 4, 8, 16}
	order := Order(values, 3, 7)
	if len(order) != 15 {
		t.Fatalf("%d points, want 15", len(order))
	}
	orders := map[string]bool{}
	for rep := 1; rep <= 3; rep++ {
		block := order[(rep-1)*5 : rep*5]
		seen := map[int]bool{}
		key := ""
		for _, p := range block {
			if p.Rep != rep || seen[p.Value] {
				t.Fatalf("block %d: %v", rep, block)
			}
			seen[p.Value] = true
			key += string(rune('0' + p.Value%10))
		}
		orders[key] = true
	}
	if len(orders) < 2 {
		t.Errorf("every repetition ran in the same order: %v", order)
	}
	if again := Order(values, 3, 7); again[0] != order[0] || again[14] != order[14] {
		t.Error("the same seed gave another order")
	}
}

// A curve that rises steeply, then gently, then not at all: the knee is the
// last value whose gain is significant, and the intervals cover the means.
func TestAnalyzeFindsTheKnee(t *testing.T) {
	mean := map[int]float64{1: 1000, 2: 1900, 4: 3400, 8: 3420, 16: 3400}
	noise := []float64{-20, 0, 25}
	var rs []Result
	for v, m := range mean {
		for i := range noise {
			n := noise[(i+v)%len(noise)] // each value's noise in its own order
			rs = append(rs, Result{Point: Point{Value: v, Rep: i + 1}, TPS: m + n, P99: time.Duration(v) * time.Millisecond})
		}
	}
	rs = append(rs, Result{Point: Point{Value: 32, Rep: 1}, Error: "too many clients"})
	a := Analyze("clients", rs)
	if len(a.Levels) != 5 || a.Levels[0].Value != 1 || a.Levels[4].Value != 16 {
		t.Fatalf("levels %+v", a.Levels)
	}
	if a.Knee != 4 {
		t.Errorf("knee %d (%s), want 4", a.Knee, a.KneeNote)
	}
	l := a.Levels[2]
	if l.TPSLow > 3400 || l.TPSHi < 3400 || !l.Significant || a.Levels[3].Significant {
		t.Errorf("level 4: %+v; level 8: %+v", l, a.Levels[3])
	}
	var b strings.Builder
	if err := a.WriteText(&b); err != nil || !strings.Contains(b.String(), "knee: clients 4") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
}

// A machine 20% slower in one repetition and 20% faster in another: the
// gain from 4 to 8 clients (+5%) is within each repetition, so the
// differences there see it where the means' spread hides it.
func TestGainIsPairedByRepetition(t *testing.T) {
	speed := []float64{0.8, 1, 1.2}
	wobble := []float64{1.002, 0.998, 1}
	var rs []Result
	for i := range speed {
		rs = append(rs, Result{Point: Point{Value: 4, Rep: i + 1}, TPS: 3000 * speed[i]},
			Result{Point: Point{Value: 8, Rep: i + 1}, TPS: 3150 * speed[i] * wobble[i]})
	}
	a := Analyze("clients", rs)
	l := a.Levels[1]
	if l.GainMethod != GainPaired || !l.Significant || l.GainLo > l.Gain || math.Abs(l.Gain-150.0/4) > 2 {
		t.Errorf("level 8: %+v, want a significant gain of about 37.5 per client, paired", l)
	}
	var b strings.Builder
	if err := a.WriteText(&b); err != nil || !strings.Contains(b.String(), "gain per unit: 95% interval of the differences within each repetition") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
	// The same runs without their repetitions: Welch on the means.
	for i := range rs {
		rs[i].Rep = i + 1
	}
	if l := Analyze("clients", rs).Levels[1]; l.GainMethod != GainWelch || l.Significant {
		t.Errorf("unpaired: %+v, want Welch, not significant", l)
	}
}

func TestAnalyzeWithoutRepetitionsSaysSo(t *testing.T) {
	a := Analyze("clients", []Result{{Point: Point{Value: 1, Rep: 1}, TPS: 10}, {Point: Point{Value: 2, Rep: 1}, TPS: 20}})
	if a.Knee != 0 || !strings.Contains(a.KneeNote, "--repetitions") {
		t.Errorf("knee %d: %s", a.Knee, a.KneeNote)
	}
}

func TestPhasesFromFileAndSeries(t *testing.T) {
	phases, err := ParsePhases(strings.NewReader("# warm\n10s 100\n\n10s 0\n5s 300 # peak\n"))
	if err != nil || len(phases) != 3 || phases[2].Until != 25*time.Second || phases[1].PerSecond != 0 {
		t.Fatalf("phases %+v, %v", phases, err)
	}
	for _, bad := range []string{"", "10s", "0s 5", "10s -1", "ten 5"} {
		if _, err := ParsePhases(strings.NewReader(bad)); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
	s := &metrics.Series{Kinds: []string{"transaction"}}
	for sec := 1; sec <= 25; sec++ {
		n := int64(100)
		switch {
		case sec > 20:
			n = 280
		case sec > 10:
			n = 0
		}
		s.Points = append(s.Points, metrics.Point{Elapsed: time.Duration(sec) * time.Second, Length: time.Second,
			Counts: []int64{n}, P99: []time.Duration{time.Duration(sec) * time.Millisecond}})
	}
	got := Phases(phases, s)
	if got[0].TPS != 100 || got[1].TPS != 0 || got[2].TPS != 280 || got[2].WorstP99 != 25 || got[0].Seconds != 10 {
		t.Errorf("phases %+v", got)
	}
}
