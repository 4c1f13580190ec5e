package switchback

import (
	"math"
	"time"

	"github.com/pgoltp/pgoltp/internal/stats"
)

// Block is one arm's stretch between two switches, less its settling gap:
// the whole seconds of the run's series inside it and their mean.
type Block struct {
	Arm      string    `json:"arm"`
	Pair     int       `json:"pair"` // 0-based: blocks 2k and 2k+1 are pair k
	From     time.Time `json:"from"` // the switch plus the settling gap
	To       time.Time `json:"to"`   // the next switch, or the series' end
	Seconds  int       `json:"seconds"`
	PerSec   float64   `json:"per_second"` // mean committed transactions per second
	FirstSec int       `json:"first_second"`
	// CPU is the server's and the driver's CPU time over the block's
	// seconds, when the caller measured it (0: not measured).
	CPU time.Duration `json:"cpu_ns,omitempty"`
	// Covariates are what the caller measured beside the block (the
	// neighbours' CPU, the CPU's speed, ...), by name: EstimateAdjusted.
	Covariates map[string]float64 `json:"covariates,omitempty"`
}

// Throughput is a block's level: committed transactions per second.
func Throughput(b Block) float64 { return b.PerSec }

// PerCPU is a block's transactions per CPU-second (0: CPU not measured).
func PerCPU(b Block) float64 {
	if b.CPU <= 0 {
		return 0
	}
	return b.PerSec * float64(b.Seconds) / b.CPU.Seconds()
}

// Window is the span of a block's whole seconds in a series that starts at start.
func (b Block) Window(start time.Time) (from, to time.Time) {
	from = start.Add(time.Duration(b.FirstSec) * time.Second)
	return from, from.Add(time.Duration(b.Seconds) * time.Second)
}

// Blocks cuts the per-second series (second i covers start+i .. start+i+1)
// at the switches: each block keeps the whole seconds that start at least
// settle after its switch and end before the next one.
func Blocks(start time.Time, perSecond []float64, switches []Switch, settle time.Duration) []Block {
	end := start.Add(time.Duration(len(perSecond)) * time.Second)
	var out []Block
	for k, sw := range switches {
		b := Block{Arm: sw.Arm, Pair: sw.Block / 2, From: sw.At.Add(settle), To: end, FirstSec: -1}
		if k+1 < len(switches) {
			b.To = switches[k+1].At
		}
		var sum float64
		for i, v := range perSecond {
			s := start.Add(time.Duration(i) * time.Second)
			if s.Before(b.From) || s.Add(time.Second).After(b.To) {
				continue
			}
			if b.FirstSec < 0 {
				b.FirstSec = i
			}
			sum += v
			b.Seconds++
		}
		if b.Seconds > 0 {
			b.PerSec = sum / float64(b.Seconds)
		}
		out = append(out, b)
	}
	return out
}

// pairRatio is one pair's log(B/A), whether B ran first, and its blocks.
type pairRatio struct {
	logRatio float64
	bFirst   bool
	a, b     Block
}

// ratios pairs the adjacent blocks of each pair (both arms measured) on
// the level of each.
func ratios(blocks []Block, level func(Block) float64) []pairRatio {
	byPair := map[int][]Block{}
	var pairs []int
	for _, b := range blocks {
		if _, ok := byPair[b.Pair]; !ok {
			pairs = append(pairs, b.Pair)
		}
		byPair[b.Pair] = append(byPair[b.Pair], b)
	}
	var out []pairRatio
	for _, p := range pairs {
		bs := byPair[p]
		if len(bs) != 2 || bs[0].Arm == bs[1].Arm || bs[0].Seconds == 0 || bs[1].Seconds == 0 || level(bs[0]) <= 0 || level(bs[1]) <= 0 {
			continue
		}
		a, b := bs[0], bs[1]
		if a.Arm == B {
			a, b = b, a
		}
		out = append(out, pairRatio{logRatio: math.Log(level(b) / level(a)), bFirst: bs[0].Arm == B, a: a, b: b})
	}
	return out
}

// Estimate is B's effect over A at level from the pairs of adjacent blocks.
// With both orders present (the design balances them), the effect is the
// mean of the two orders' mean log ratios: a drift linear over a pair adds
// +d to one order and −d to the other, so it cancels exactly, and the
// residual spread within the orders gives the interval (t with n−2 degrees
// of freedom). Otherwise, the plain mean of the pairs (n−1).
func Estimate(blocks []Block, level float64) stats.Effect {
	return EstimateOf(blocks, level, Throughput)
}

// EstimateOf is Estimate on another level of a block (PerCPU).
func EstimateOf(blocks []Block, level float64, of func(Block) float64) stats.Effect {
	rs := ratios(blocks, of)
	var ab, ba []float64
	for _, r := range rs {
		if r.bFirst {
			ba = append(ba, r.logRatio)
		} else {
			ab = append(ab, r.logRatio)
		}
	}
	n := len(rs)
	var est, se, df float64
	switch {
	case len(ab) >= 1 && len(ba) >= 1 && n >= 3:
		mab, mba := mean(ab), mean(ba)
		ss := sumSq(ab, mab) + sumSq(ba, mba)
		df = float64(n - 2)
		est = (mab + mba) / 2
		se = 0.5 * math.Sqrt(ss/df*(1/float64(len(ab))+1/float64(len(ba))))
	case n >= 2:
		all := append(ab, ba...)
		m := mean(all)
		df = float64(n - 1)
		est, se = m, math.Sqrt(sumSq(all, m)/df/float64(n))
	default:
		return stats.Effect{Pairs: n, Level: level}
	}
	t := stats.StudentQuantile(1-(1-level)/2, df)
	pct := func(x float64) float64 { return 100 * math.Expm1(x) }
	return stats.Effect{Pairs: n, Level: level, Percent: pct(est), Low: pct(est - t*se), High: pct(est + t*se),
		MDE: stats.MDE(se, df, level), LogRatio: est, SE: se, DF: df, BetweenSE: se, Noise: stats.NoiseBetweenPair,
		Valid: !math.IsNaN(se) && !math.IsInf(se, 0)}
}

// EstimateAdjusted is EstimateOf adjusted for the blocks' covariates, in
// the order of names (stats.Adjust): the pairs' log ratios regressed on the
// pair's order (±1, when both orders are present: its intercept is then
// EstimateOf's mean of the two orders' means) and each covariate's B − A
// difference. The unadjusted effect comes first.
func EstimateAdjusted(blocks []Block, level float64, of func(Block) float64, names []string) (stats.Effect, stats.Adjustment) {
	u := EstimateOf(blocks, level, of)
	rs := ratios(blocks, of)
	d := make([]float64, len(rs))
	order := make([]float64, len(rs))
	both := [2]bool{}
	for i, r := range rs {
		d[i], order[i] = r.logRatio, -1
		if r.bFirst {
			order[i] = 1
		}
		both[(int(order[i])+1)/2] = true
	}
	var fixed [][]float64
	if both[0] && both[1] && len(rs) >= 3 {
		fixed = [][]float64{order}
	}
	var cands []stats.Covariate
	for _, name := range names {
		if !anyHas(blocks, name) {
			continue // not measured in this run at all (the server's side, say)
		}
		diff := make([]float64, len(rs))
		for i, r := range rs {
			va, okA := r.a.Covariates[name]
			vb, okB := r.b.Covariates[name]
			diff[i] = vb - va
			if !okA || !okB {
				diff[i] = math.NaN()
			}
		}
		cands = append(cands, stats.Covariate{Name: name, Diff: diff})
	}
	if !u.Valid {
		return u, stats.Adjustment{Effect: u}
	}
	return u, stats.Adjust(d, fixed, cands, u, 1)
}

func anyHas(blocks []Block, name string) bool {
	for _, b := range blocks {
		if _, ok := b.Covariates[name]; ok {
			return true
		}
	}
	return false
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func sumSq(v []float64, m float64) float64 {
	var s float64
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return s
}
