package lang

import (
	"math"
	"math/bits"
)

// PRNG is PostgreSQL's pg_prng: xoroshiro128** seeded through splitmix64.
// The zero value is not seeded; use Seed.
type PRNG struct{ s0, s1 uint64 }

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// Seed sets the state as pg_prng_seed does.
func (p *PRNG) Seed(seed uint64) {
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 { // pg_prng_seed_check: never all zeroes
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
}

// NewPRNG returns a generator seeded with seed.
func NewPRNG(seed uint64) *PRNG {
	p := &PRNG{}
	p.Seed(seed)
	return p
}

// Uint64 is pg_prng_uint64.
func (p *PRNG) Uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return v
}

// Uint64Range is pg_prng_uint64_range: uniform in [lo, hi] by rejection of
// the top bits.
func (p *PRNG) Uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	span := hi - lo
	shift := uint(bits.LeadingZeros64(span))
	for {
		v := p.Uint64() >> shift
		if v <= span {
			return lo + v
		}
	}
}

// Double is pg_prng_double: uniform in [0, 1) with 52 random bits.
func (p *PRNG) Double() float64 {
	return math.Ldexp(float64(p.Uint64()>>(64-52)), -52)
}
