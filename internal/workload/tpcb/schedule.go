package tpcb

import (
	"math"
	"math/rand/v2"
	"time"
)

// poissonSchedule is pgbench's --rate: transactions start at the times of
// a Poisson process (exponentially distributed gaps), and latency counts
// from the scheduled start so that a server falling behind shows as lag
// rather than as a lower offered load. Each client paces its share of the
// rate; the sum of independent Poisson processes is the Poisson process of
// the total rate, which is what pgbench's per-thread schedule produces.
type poissonSchedule struct {
	mean time.Duration // mean gap for this client
	next time.Time
	rng  *rand.Rand
}

func newPoissonSchedule(totalPerSecond float64, clients int, start time.Time, rng *rand.Rand) *poissonSchedule {
	if totalPerSecond <= 0 {
		return nil
	}
	s := &poissonSchedule{mean: time.Duration(float64(time.Second) * float64(clients) / totalPerSecond), next: start, rng: rng}
	s.next = start.Add(s.gap())
	return s
}

// gap draws one exponential gap; like pgbench's getPoissonRand it never
// returns more than about 9.2 mean gaps (u is at least 1e-4).
func (s *poissonSchedule) gap() time.Duration {
	u := 1 - s.rng.Float64()*(1-1e-4)
	return time.Duration(-math.Log(u) * float64(s.mean))
}

// take returns the scheduled start of the next transaction and advances.
func (s *poissonSchedule) take() time.Time {
	t := s.next
	s.next = s.next.Add(s.gap())
	return t
}
