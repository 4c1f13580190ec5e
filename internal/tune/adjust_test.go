package tune

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// comparisonRuns simulates a comparison's runs A B A … A of 10 s: a +5%
// step, and a slower CPU (the speed probe's cpu_probe_ms) that costs each
// run 4% of throughput per 0.1 ms, the probe varying by ±0.2 ms from run to
// run as a neighbour comes and goes; per-second noise 3%.
func comparisonRuns(r *rand.Rand, pairs int) (ma, mb []workload.Measurement, as, bs []stats.Run) {
	for slot := range 2*pairs + 1 {
		probe := 3 + 0.2*r.NormFloat64()
		level := 1000 * math.Exp(-0.4*(probe-3))
		if slot%2 == 1 {
			level *= 1.05
		}
		m := workload.Measurement{Elapsed: 10 * time.Second, Covariates: map[string]float64{experiment.CovProbe: probe, experiment.CovRunQueue: 2 + r.Float64()}}
		for range 10 {
			x := level * math.Exp(0.03*r.NormFloat64())
			m.PerSecond = append(m.PerSecond, x)
			m.Transactions += int64(x)
		}
		if slot%2 == 1 {
			mb, bs = append(mb, m), append(bs, runOf(ObjectiveTPS, m))
		} else {
			ma, as = append(ma, m), append(as, runOf(ObjectiveTPS, m))
		}
	}
	return ma, mb, as, bs
}

// TestComparisonAdjustsForCovariates: a comparison of 8 pairs adjusts for
// the CPU probe that moved its runs (the first covariate in the order): its
// interval is narrower than the unadjusted one and covers the true +5%, and
// the log line says what it was adjusted for; with 5 pairs (the default
// --max-pairs) it adjusts for nothing and says why (issue 29.2).
func TestComparisonAdjustsForCovariates(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ma, mb, as, bs := comparisonRuns(r, 8)
	u := stats.Paired(as, bs, 0.95)
	a := adjusted(ma, mb, as, bs, u)
	if len(a.Used) == 0 || a.Used[0] != experiment.CovProbe || !a.Effect.Valid {
		t.Fatalf("adjustment %+v", a)
	}
	if a.Effect.High-a.Effect.Low >= u.High-u.Low || a.Effect.Low > 5 || a.Effect.High < 5 {
		t.Errorf("adjusted %s, unadjusted %s: want narrower, covering +5%%", effectText(a.Effect), effectText(u))
	}
	if txt := adjustedText(u, a); !strings.Contains(txt, "adjusted for cpu_probe_ms, before adjustment") {
		t.Errorf("log: %q", txt)
	}
	ma, mb, as, bs = comparisonRuns(r, 5)
	u = stats.Paired(as, bs, 0.95)
	a = adjusted(ma, mb, as, bs, u)
	if len(a.Used) != 0 || a.Effect != u || !strings.Contains(adjustedText(u, a), "5 pairs allow 0 covariates") {
		t.Errorf("5 pairs: %+v, %q", a, adjustedText(u, a))
	}
}
