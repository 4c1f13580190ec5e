package lang

import "math"

// pgbench computes exp, ln and pow with the C library, whose results are
// (nearly always) the correctly rounded ones; Go's math package is off by
// an ulp now and then, which shows in a printed double or, rarely, in a
// random draw. These compute in double-double (about 106 bits) and round
// once, so they give the correctly rounded value.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	v := s - a
	return dd{s, (a - (s - v)) + (b - v)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = quickTwoSum(s.hi, s.lo+t.hi)
	return quickTwoSum(s.hi, s.lo+t.lo)
}

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	return quickTwoSum(p.hi, p.lo+a.hi*b.lo+a.lo*b.hi)
}

func (a dd) mulF(b float64) dd {
	p := twoProd(a.hi, b)
	return quickTwoSum(p.hi, p.lo+a.lo*b)
}

// ln2 in double-double.
var ln2 = dd{0.6931471805599453, 2.3190468138462996e-17}

const expSquarings = 8

// expDD is e^a for |a.hi| <= 708: a = k ln2 + r, e^(r/256) by its Taylor
// series, squared eight times, scaled by 2^k.
func expDD(a dd) dd {
	k := math.Round(a.hi / ln2.hi)
	r := a.add(ln2.mulF(-k))
	r = dd{math.Ldexp(r.hi, -expSquarings), math.Ldexp(r.lo, -expSquarings)}
	s := dd{1, 0}
	for i := 11; i >= 1; i-- { // Horner: 1 + r/1 (1 + r/2 (1 + ...))
		t := s.mul(r)
		q := t.hi / float64(i)
		rem := t.add(twoProd(q, -float64(i)))
		s = dd{1, 0}.add(quickTwoSum(q, rem.hi/float64(i)))
	}
	for i := 0; i < expSquarings; i++ {
		s = s.mul(s)
	}
	return dd{math.Ldexp(s.hi, int(k)), math.Ldexp(s.lo, int(k))}
}

// cExp is the C library's exp.
func cExp(x float64) float64 {
	if math.IsNaN(x) || x > 708 || x < -708 {
		return math.Exp(x)
	}
	return expDD(dd{x, 0}).hi
}

// logDD is ln(x) for a positive normal finite x: Go's log refined by one
// Newton step in double-double.
func logDD(x float64) dd {
	y := math.Log(x)
	t := expDD(dd{-y, 0}).mulF(x)         // x e^-y, close to 1
	return dd{y, 0}.add(t.add(dd{-1, 0})) // y + (x e^-y - 1)
}

// cLog is the C library's log.
func cLog(x float64) float64 {
	if !(x >= 0x1p-1022) || math.IsInf(x, 1) {
		return math.Log(x)
	}
	return logDD(x).hi
}

// cPow is the C library's pow.
func cPow(x, y float64) float64 {
	ax, neg := x, false
	if x < 0 && y == math.Trunc(y) && !math.IsInf(y, 0) {
		ax, neg = -x, math.Mod(y, 2) != 0
	}
	if !(ax >= 0x1p-1022) || math.IsInf(ax, 1) || math.IsNaN(y) || math.IsInf(y, 0) || y == 0 || ax == 1 {
		return math.Pow(x, y)
	}
	t := logDD(ax).mulF(y)
	if t.hi > 708 || t.hi < -708 {
		return math.Pow(x, y)
	}
	r := expDD(t).hi
	if neg {
		return -r
	}
	return r
}
