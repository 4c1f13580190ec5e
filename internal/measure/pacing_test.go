package measure

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestThinkTimeMeanAndCap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mean := 12 * time.Second
	var sum time.Duration
	const n = 200000
	for range n {
		tt := ThinkTime(mean, 1-r.Float64())
		if tt > 10*mean || tt < 0 {
			t.Fatalf("think time %v outside [0, 10×mean]", tt)
		}
		sum += tt
	}
	// The cap at 10× removes e^-10 of the mass: the mean stays within 1%.
	if got := sum / n; got < mean*99/100 || got > mean*101/100 {
		t.Errorf("mean think time %v, want ~%v", got, mean)
	}
}

func TestScheduleSpacing(t *testing.T) {
	start := time.Unix(0, 0)
	s := NewSchedule(600, 0, 10, start) // 600/min over 10 terminals: each every second
	a, b := s.Next(), s.Next()
	if b.Sub(a) != time.Second {
		t.Errorf("interval %v, want 1s", b.Sub(a))
	}
	var none Schedule
	if none.Limited() {
		t.Error("zero schedule is limited")
	}
}

// TestPoissonMeanGap: a client's share of 100 txn/s over 4 clients starts
// one every 40 ms on average, never more than about 9.2 mean gaps apart.
func TestPoissonMeanGap(t *testing.T) {
	start := time.Unix(0, 0)
	p := NewPoisson(100, 4, start, rand.New(rand.NewPCG(5, 6)))
	const n = 100000
	prev := start
	var last time.Time
	for range n {
		last = p.Take()
		if gap := last.Sub(prev); gap < 0 || gap > 370*time.Millisecond {
			t.Fatalf("gap %v outside [0, 9.2 × 40ms]", gap)
		}
		prev = last
	}
	if mean := last.Sub(start) / n; mean < 39*time.Millisecond || mean > 41*time.Millisecond {
		t.Errorf("mean gap %v, want ~40ms", mean)
	}
	if NewPoisson(0, 4, start, nil) != nil {
		t.Error("a rate of 0 paces")
	}
}

// TestPoissonPhasesFollowTheSteps: a step load's schedule offers each
// phase's rate in its slice, nothing in a phase at rate 0, and the last
// rate after the last phase.
func TestPoissonPhasesFollowTheSteps(t *testing.T) {
	start := time.Unix(1000, 0)
	phases := []RatePhase{{Until: 10 * time.Second, PerSecond: 100}, {Until: 20 * time.Second, PerSecond: 0}, {Until: 30 * time.Second, PerSecond: 1000}}
	var counts [4]int
	for client := range 2 {
		s := NewPoissonPhases(phases, 2, start, rand.New(rand.NewPCG(7, uint64(client))))
		for {
			at := s.Take().Sub(start)
			if at >= 35*time.Second {
				break
			}
			counts[min(int(at/(10*time.Second)), 3)]++
		}
	}
	within := func(got, want int) bool { return math.Abs(float64(got-want)) < 5*math.Sqrt(float64(want)) }
	if !within(counts[0], 1000) || counts[1] != 0 || !within(counts[2], 10000) || !within(counts[3], 5000) {
		t.Errorf("transactions by 10s slice %v, want about 1000, 0, 10000 and 5000 (the last rate for 5s)", counts)
	}
}
