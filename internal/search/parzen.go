package search

import (
	"math"
	"math/rand"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

// parzen is a Parzen-window density over coordinates: an equal-weight
// mixture with one component per observation plus a broad prior component,
// each component a product of one kernel per coordinate (the "multivariate"
// TPE of Falkner et al. 2018, which keeps the joint structure of good points
// where the original per-dimension TPE would mix coordinates of different
// points). Continuous kernels are Gaussians truncated to [0, 1]; categorical
// ones put most of their mass on the observed choice and the rest evenly.
type parzen struct {
	choices []int
	centers [][]float64 // one per observation; the prior is implicit
	sigma   float64     // bandwidth of the continuous kernels
	smooth  float64     // categorical mass spread evenly over all choices
	// logNorm[c][i]: log of the mass of component c's Gaussian on
	// coordinate i that falls inside [0, 1], to renormalise the truncation.
	logNorm [][]float64
	prior   []float64 // same for the prior component
}

const (
	// bandwidthFactor scales Scott's rule. Optuna uses 0.2 of the range;
	// half of that found the optimum of Branin and of the noisy quadratic
	// in the tests more often within 30-40 evaluations (measured over 150
	// seeds: 0.05 to 0.4 tried), the budgets the tuner has.
	bandwidthFactor = 0.1
	priorSigma      = 1.0 // the prior: N(0.5, 1) truncated to [0, 1], almost flat
	minSigma        = 0.02
)

func newParzen(choices []int, centers [][]float64) *parzen {
	n := len(centers)
	// Scott's rule for a product kernel in d dimensions, on a unit range.
	sigma := bandwidthFactor * math.Pow(float64(n+1), -1/float64(len(choices)+4))
	pz := &parzen{
		choices: choices,
		centers: centers,
		sigma:   math.Max(sigma, minSigma),
		smooth:  1 / math.Sqrt(float64(n+1)),
		logNorm: make([][]float64, n),
	}
	for c, mu := range centers {
		pz.logNorm[c] = pz.truncation(mu, pz.sigma)
	}
	pz.prior = pz.truncation(nil, priorSigma)
	return pz
}

// truncation computes, per continuous coordinate, log P(0 <= X <= 1) for X
// normal around mu (nil: the prior's centre 0.5).
func (pz *parzen) truncation(mu []float64, sigma float64) []float64 {
	out := make([]float64, len(pz.choices))
	for i, k := range pz.choices {
		if k > 0 {
			continue
		}
		m := 0.5
		if mu != nil {
			m = mu[i]
		}
		nd := distuv.Normal{Mu: m, Sigma: sigma}
		out[i] = math.Log(math.Max(nd.CDF(1)-nd.CDF(0), 1e-300))
	}
	return out
}

// sample draws a point: a component uniformly, then each coordinate from
// that component's kernel.
func (pz *parzen) sample(rng *rand.Rand) []float64 {
	c := rng.Intn(len(pz.centers) + 1)
	var mu []float64
	sigma := priorSigma
	if c < len(pz.centers) {
		mu, sigma = pz.centers[c], pz.sigma
	}
	z := make([]float64, len(pz.choices))
	for i, k := range pz.choices {
		switch {
		case k > 0 && (mu == nil || rng.Float64() < pz.smooth):
			z[i] = float64(rng.Intn(k))
		case k > 0:
			z[i] = mu[i]
		default:
			m := 0.5
			if mu != nil {
				m = mu[i]
			}
			z[i] = truncNormal(m, sigma, rng)
		}
	}
	return z
}

// truncNormal draws from N(mu, sigma) restricted to [0, 1] by inverting the
// CDF on the interval's share of it.
func truncNormal(mu, sigma float64, rng *rand.Rand) float64 {
	nd := distuv.Normal{Mu: mu, Sigma: sigma}
	lo, hi := nd.CDF(0), nd.CDF(1)
	if hi-lo < 1e-12 { // mu far outside: the interval's nearest end
		return clamp01(mu)
	}
	return clamp01(nd.Quantile(lo + rng.Float64()*(hi-lo)))
}

// logPDF is the log density of the mixture at z.
func (pz *parzen) logPDF(z []float64) float64 {
	terms := make([]float64, 0, len(pz.centers)+1)
	for c, mu := range pz.centers {
		terms = append(terms, pz.componentLogPDF(z, mu, pz.sigma, pz.logNorm[c]))
	}
	terms = append(terms, pz.componentLogPDF(z, nil, priorSigma, pz.prior))
	return floats.LogSumExp(terms) - math.Log(float64(len(terms)))
}

func (pz *parzen) componentLogPDF(z, mu []float64, sigma float64, logNorm []float64) float64 {
	lp := 0.0
	for i, k := range pz.choices {
		if k > 0 {
			p := pz.smooth / float64(k)
			if mu == nil {
				p = 1 / float64(k)
			} else if z[i] == mu[i] {
				p += 1 - pz.smooth
			}
			lp += math.Log(p)
			continue
		}
		m := 0.5
		if mu != nil {
			m = mu[i]
		}
		d := (z[i] - m) / sigma
		lp += -0.5*d*d - math.Log(sigma) - 0.5*math.Log(2*math.Pi) - logNorm[i]
	}
	return lp
}
