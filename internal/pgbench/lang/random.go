package lang

import (
	"math"
	"math/bits"
)

// Parameter bounds pgbench enforces for the random distributions.
const (
	MinGaussianParam = 2.0
	MinZipfianParam  = 1.001
	MaxZipfianParam  = 1000.0
)

// Rand is pgbench's getrand: uniform in [lo, hi]. hi-lo must not overflow.
func Rand(p *PRNG, lo, hi int64) int64 {
	return lo + int64(p.Uint64Range(0, uint64(hi-lo)))
}

// RandExponential is pgbench's getExponentialRand.
func RandExponential(p *PRNG, lo, hi int64, param float64) int64 {
	uniform := 1.0 - p.Double()
	span := float64(hi - lo + 1)
	// Go's exp and log are within a few ulps of libm's; only a product
	// that lands next to an integer needs them exact.
	cut := math.Exp(-param)
	v := span * (-math.Log(cut+(1.0-cut)*uniform) / param)
	if nearInteger(v) {
		cut = cExp(-param)
		v = span * (-cLog(cut+(1.0-cut)*uniform) / param)
	}
	return lo + int64(v)
}

// nearInteger says whether rounding errors of a few parts in 1e15 could
// move v across an integer (so its truncation needs exact arithmetic).
func nearInteger(v float64) bool {
	frac := v - math.Floor(v)
	slack := 1e-12 * math.Max(1, math.Abs(v))
	return frac < slack || 1-frac < slack || math.IsNaN(v) || math.IsInf(v, 0)
}

// RandGaussian is pgbench's getGaussianRand (Box-Muller, basic form,
// redrawn until within [-param, param)).
func RandGaussian(p *PRNG, lo, hi int64, param float64) int64 {
	span := float64(hi - lo + 1)
	for {
		r1 := 1.0 - p.Double()
		r2 := 1.0 - p.Double()
		sn := math.Sin(2.0 * math.Pi * r2)
		stdev := math.Sqrt(-2.0*math.Log(r1)) * sn
		v := span * ((stdev + param) / (param * 2.0))
		if nearInteger(v) || math.Abs(math.Abs(stdev)-param) < 1e-12*param {
			stdev = math.Sqrt(-2.0*cLog(r1)) * sn
			v = span * ((stdev + param) / (param * 2.0))
		}
		if stdev >= -param && stdev < param {
			return lo + int64(v)
		}
	}
}

// RandZipfian is pgbench's getZipfianRand (rejection-inversion, Devroye
// p. 550).
func RandZipfian(p *PRNG, lo, hi int64, s float64) int64 {
	return lo - 1 + iterativeZipfian(p, hi-lo+1, s)
}

func iterativeZipfian(p *PRNG, n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := math.Pow(2.0, s-1.0)
	for {
		u := p.Double()
		v := p.Double()
		xr := math.Pow(u, -1.0/(s-1.0))
		if xr >= float64(n)+2 && n < 1<<50 {
			continue // beyond n whatever the last bits of pow
		}
		x := math.Floor(xr)
		t := math.Pow(1.0+1.0/x, s-1.0)
		lhs, rhs := v*x*(t-1.0)/(b-1.0), t/b
		// The subtractions t-1 and b-1 magnify pow's error; when the
		// comparison is that close, or floor could go either way, redo it
		// with libm's exact results.
		slack := 8 * (4e-16*t/(t-1) + 4e-16*b/(b-1) + 1e-15) * math.Abs(rhs)
		if nearInteger(xr) || !(math.Abs(lhs-rhs) > slack) {
			bx := cPow(2.0, s-1.0)
			x = math.Floor(cPow(u, -1.0/(s-1.0)))
			t = cPow(1.0+1.0/x, s-1.0)
			lhs, rhs = v*x*(t-1.0)/(bx-1.0), t/bx
		}
		if lhs <= rhs && x <= float64(n) {
			return int64(x)
		}
	}
}

// RandPoisson is pgbench's getPoissonRand, used for --rate schedules.
func RandPoisson(p *PRNG, center float64) int64 {
	uniform := 1.0 - p.Double()
	return int64(-cLog(uniform)*center + 0.5)
}

const (
	fnvPrime      = 0x100000001b3
	fnvOffset     = 0xcbf29ce484222325
	mm2Mul        = 0xc6a4a7935bd1e995
	mm2MulTimes8  = 0x35253c9ade8f4ca8
	mm2Rot        = 47
	permuteRounds = 6
)

// HashFNV1a is pgbench's hash_fnv1a(val, seed).
func HashFNV1a(val int64, seed int64) int64 {
	h := uint64(fnvOffset) ^ uint64(seed)
	for i := 0; i < 8; i++ {
		h ^= uint64(val & 0xff)
		h *= fnvPrime
		val >>= 8
	}
	return int64(h)
}

// HashMurmur2 is pgbench's hash_murmur2(val, seed), the default hash.
func HashMurmur2(val int64, seed int64) int64 {
	h := uint64(seed) ^ mm2MulTimes8
	k := uint64(val) * mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}

// Permute is pgbench's permute(val, size, seed): a bijection of [0, size)
// keyed by seed (size < 2 gives 0).
func Permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	p := NewPRNG(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size))
	mask := uint64(1)<<masklen - 1
	for i := 0; i < permuteRounds; i++ {
		m := p.Uint64()&mask | 1
		r := p.Uint64() & mask
		if v <= mask {
			v = ((v * m) ^ r) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		m = p.Uint64()&mask | 1
		r = p.Uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = ((t * m) ^ r) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = size - 1 - t
		}
		r = p.Uint64Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}
