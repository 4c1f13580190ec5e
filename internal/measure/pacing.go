package measure

import (
	"math"
	"math/rand/v2"
	"time"
)

// Pacing: when a worker's next transaction is due. Latency counts from the
// due time, so that a server falling behind shows as queueing (lag), not as
// a silently lower offered load.

// ThinkTime returns a think time drawn from the negative exponential
// distribution with the given mean, capped at 10 × mean (TPC-C clause 5.2.5.4).
// u must be uniform in (0, 1].
func ThinkTime(mean time.Duration, u float64) time.Duration {
	if mean <= 0 {
		return 0
	}
	if u <= 0 {
		u = math.SmallestNonzeroFloat64
	}
	t := time.Duration(-math.Log(u) * float64(mean))
	if t > 10*mean {
		t = 10 * mean
	}
	return t
}

// Schedule paces one terminal to its share of a total rate (transactions per
// minute over all terminals, like BenchmarkSQL's limitTxnsPerMin). Each call to
// Next returns the scheduled start of the next transaction; latency is measured
// from that time, so a server that falls behind shows as queueing delay instead
// of a silently lower offered load. A zero Schedule (rate 0) never waits.
type Schedule struct {
	interval time.Duration
	next     time.Time
}

// NewSchedule returns the schedule of terminal i of n at totalPerMinute,
// starting at start; terminals are staggered over the first interval.
func NewSchedule(totalPerMinute float64, i, n int, start time.Time) Schedule {
	if totalPerMinute <= 0 || n <= 0 {
		return Schedule{}
	}
	interval := time.Duration(float64(time.Minute) * float64(n) / totalPerMinute)
	return Schedule{interval: interval, next: start.Add(interval * time.Duration(i) / time.Duration(n))}
}

// Limited reports whether the schedule paces at all.
func (s *Schedule) Limited() bool { return s.interval > 0 }

// Next returns the scheduled start of the next transaction and advances the
// schedule. The schedule never waits for a terminal that is late: the next slot
// is one interval after the previous slot, not after now.
func (s *Schedule) Next() time.Time {
	t := s.next
	s.next = s.next.Add(s.interval)
	return t
}

// Poisson is pgbench's --rate: transactions start at the times of
// a Poisson process (exponentially distributed gaps), and latency counts
// from the scheduled start so that a server falling behind shows as lag
// rather than as a lower offered load. Each client paces its share of the
// rate; the sum of independent Poisson processes is the Poisson process of
// the total rate, which is what pgbench's per-thread schedule produces.
type Poisson struct {
	mean time.Duration // mean gap for this client
	next time.Time
	rng  *rand.Rand
	// With phases the rate changes by slices of the run (a step load):
	// each gap is drawn at the rate of the phase it starts in.
	phases  []RatePhase
	start   time.Time
	clients int
}

// RatePhase is one slice of a run at one rate: up to Until (from the run's
// start), PerSecond transactions per second over all clients; 0 is none.
type RatePhase struct {
	Until     time.Duration `json:"until_ns"`
	PerSecond float64       `json:"per_second"`
}

// NewPoissonPhases is one client's share of a rate that changes by phase;
// after the last phase the last rate goes on.
func NewPoissonPhases(phases []RatePhase, clients int, start time.Time, rng *rand.Rand) *Poisson {
	s := &Poisson{rng: rng, phases: phases, start: start, clients: clients}
	s.next = s.after(start)
	return s
}

// NewPoisson is one client's share of totalPerSecond over clients, from
// start, drawing its gaps from rng; nil (no pacing) for a rate of 0.
func NewPoisson(totalPerSecond float64, clients int, start time.Time, rng *rand.Rand) *Poisson {
	if totalPerSecond <= 0 {
		return nil
	}
	s := &Poisson{mean: time.Duration(float64(time.Second) * float64(clients) / totalPerSecond), next: start, rng: rng}
	s.next = start.Add(s.gap())
	return s
}

// gap draws one exponential gap; like pgbench's getPoissonRand it never
// returns more than about 9.2 mean gaps (u is at least 1e-4).
func (s *Poisson) gap() time.Duration {
	return expGap(s.rng, s.mean)
}

func expGap(rng *rand.Rand, mean time.Duration) time.Duration {
	u := 1 - rng.Float64()*(1-1e-4)
	return time.Duration(-math.Log(u) * float64(mean))
}

// never is a time no run reaches: nothing more is due.
const never = time.Duration(math.MaxInt64 / 4)

// after is the next start after from under phases: drawn at the rate of
// the phase from is in; a gap that would cross into the next phase starts
// again at that phase's start (exponential gaps forget their past, so this
// is exact), and a phase at rate 0 is skipped.
func (s *Poisson) after(from time.Time) time.Time {
	for {
		at := from.Sub(s.start)
		i := 0
		for i < len(s.phases)-1 && at >= s.phases[i].Until {
			i++
		}
		p, last := s.phases[i], i == len(s.phases)-1
		if p.PerSecond <= 0 {
			if last {
				return s.start.Add(never)
			}
			from = s.start.Add(p.Until)
			continue
		}
		next := from.Add(expGap(s.rng, time.Duration(float64(time.Second)*float64(s.clients)/p.PerSecond)))
		if !last && next.Sub(s.start) >= p.Until {
			from = s.start.Add(p.Until)
			continue
		}
		return next
	}
}

// Take returns the scheduled start of the next transaction and advances.
func (s *Poisson) Take() time.Time {
	t := s.next
	if s.phases != nil {
		s.next = s.after(t)
	} else {
		s.next = s.next.Add(s.gap())
	}
	return t
}
