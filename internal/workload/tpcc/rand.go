package tpcc

import (
	"math/rand/v2"
	"strconv"
)

// Rand is the random source of one goroutine: a PCG generator with the TPC-C
// helpers on top. It is not safe for concurrent use; give every worker and
// every terminal its own, seeded from a parent Rand for determinism.
type Rand struct {
	pcg rand.PCG
	r   *rand.Rand
}

// NewRand returns a generator whose whole output is determined by seed.
func NewRand(seed uint64) *Rand {
	g := &Rand{}
	g.pcg.Seed(seed, seed^0x9e3779b97f4a7c15)
	g.r = rand.New(&g.pcg)
	return g
}

// Uint64 returns 64 random bits (to seed child generators).
func (g *Rand) Uint64() uint64 { return g.pcg.Uint64() }

// IntRange returns a uniform integer in the closed range [lo..hi]
// ("random [x..y]" in the standard).
func (g *Rand) IntRange(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + g.r.IntN(hi-lo+1)
}

// Float returns a uniform value in [lo..hi] with the given number of decimal
// places, e.g. Float(0, 0.2, 4) for w_tax (clause 4.3.3.1). Every step of
// 10^-decimals is equally likely, as the standard's fixed-point ranges mean.
func (g *Rand) Float(lo, hi float64, decimals int) float64 {
	scale := pow10(decimals)
	n := g.IntRange(roundInt(lo*scale), roundInt(hi*scale))
	return float64(n) / scale
}

// Percent reports true with probability p/100.
func (g *Rand) Percent(p int) bool { return g.r.IntN(100) < p }

// Perm returns a random permutation of 1..n (o_c_id of the initial orders,
// clause 4.3.3.1).
func (g *Rand) Perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i + 1
	}
	g.r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// NURand is the non-uniform random function of clause 2.1.6:
// (((random[0..A] | random[x..y]) + C) mod (y − x + 1)) + x.
func (g *Rand) NURand(a, x, y, c int) int {
	return ((g.IntRange(0, a)|g.IntRange(x, y))+c)%(y-x+1) + x
}

// alnum is the alphabet of a-strings (clause 4.3.2.2: random alphanumeric).
const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// AString returns an a-string of random length [minLen..maxLen] (clause 4.3.2.2).
func (g *Rand) AString(minLen, maxLen int) string {
	return string(g.AppendAString(nil, minLen, maxLen))
}

// NString returns an n-string (digits only) of random length [minLen..maxLen].
func (g *Rand) NString(minLen, maxLen int) string {
	return string(g.AppendNString(nil, minLen, maxLen))
}

// AppendAString appends an a-string to dst: the allocation-free form the loader uses.
func (g *Rand) AppendAString(dst []byte, minLen, maxLen int) []byte {
	return g.appendFrom(dst, g.IntRange(minLen, maxLen), alnum)
}

// AppendNString appends an n-string to dst.
func (g *Rand) AppendNString(dst []byte, minLen, maxLen int) []byte {
	return g.appendFrom(dst, g.IntRange(minLen, maxLen), alnum[:10])
}

// appendFrom appends n characters drawn uniformly from alphabet, four per
// 64-bit draw. Multiply-shift on 16 bits biases a 62-letter alphabet by under
// 0.1%, far below anything the standard could notice.
func (g *Rand) appendFrom(dst []byte, n int, alphabet string) []byte {
	k := uint64(len(alphabet))
	for n > 0 {
		x := g.pcg.Uint64()
		for j := 0; j < 4 && n > 0; j++ {
			dst = append(dst, alphabet[((x&0xffff)*k)>>16])
			x >>= 16
			n--
		}
	}
	return dst
}

// AppendZip appends a zip code: 4 random digits then "11111" (clause 4.3.2.7).
func (g *Rand) AppendZip(dst []byte) []byte {
	dst = g.appendFrom(dst, 4, alnum[:10])
	return append(dst, "11111"...)
}

// AppendOriginal appends an a-string [minLen..maxLen] that carries "ORIGINAL" at a
// random position in 10% of calls (i_data and s_data, clause 4.3.3.1).
func (g *Rand) AppendOriginal(dst []byte, minLen, maxLen int) []byte {
	n := g.IntRange(minLen, maxLen)
	if !g.Percent(10) {
		return g.appendFrom(dst, n, alnum)
	}
	const orig = "ORIGINAL"
	at := g.IntRange(0, n-len(orig))
	dst = g.appendFrom(dst, at, alnum)
	dst = append(dst, orig...)
	return g.appendFrom(dst, n-at-len(orig), alnum)
}

// syllables spell the digits of a customer last name (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// AppendLastName appends the last name for num in 0..999 to dst: its three
// digits, each as a syllable (371 → PRICALLYOUGHT), clause 4.3.2.3.
func AppendLastName(dst []byte, num int) []byte {
	return append(append(append(dst, syllables[num/100%10]...), syllables[num/10%10]...), syllables[num%10]...)
}

// Bounds A of NURand for each field (clause 2.1.6).
const (
	NURandCLast = 255
	NURandCID   = 1023
	NURandOLIID = 8191
)

// Constants are the C values of NURand for each field (clause 2.1.6.1). The
// loader draws one set (C_LOAD) and records it in pgoltp_meta; a run draws its
// own set with NewRunConstants so that the C_LAST delta rule holds.
type Constants struct {
	CLast int // C for C_LAST, in [0..255]
	CID   int // C for C_ID, in [0..1023]
	OLIID int // C for OL_I_ID, in [0..8191]
}

// NewLoadConstants draws C_LOAD for each field, uniform in [0..A].
func NewLoadConstants(g *Rand) Constants {
	return Constants{
		CLast: g.IntRange(0, NURandCLast),
		CID:   g.IntRange(0, NURandCID),
		OLIID: g.IntRange(0, NURandOLIID),
	}
}

// NewRunConstants draws C_RUN given the C_LOAD of the database (clause 2.1.6.1):
// for C_LAST, delta = |C_RUN − C_LOAD| must lie in [65..119] and differ from 96
// and 112; C_ID and OL_I_ID are drawn afresh in [0..A], which the clause allows.
func NewRunConstants(load Constants, g *Rand) Constants {
	run := Constants{
		CID:   g.IntRange(0, NURandCID),
		OLIID: g.IntRange(0, NURandOLIID),
	}
	// Collect every valid C_RUN for C_LAST and pick one uniformly: at least one
	// direction always fits in [0..255] because 119 < 256/2.
	var valid []int
	for c := 0; c <= NURandCLast; c++ {
		if validCLastDelta(load.CLast, c) {
			valid = append(valid, c)
		}
	}
	run.CLast = valid[g.IntRange(0, len(valid)-1)]
	return run
}

// validCLastDelta reports whether cRun may be used with cLoad (clause 2.1.6.1).
func validCLastDelta(cLoad, cRun int) bool {
	d := cRun - cLoad
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

func pow10(n int) float64 {
	p := 1.0
	for range n {
		p *= 10
	}
	return p
}

func roundInt(f float64) int {
	if f < 0 {
		return -int(-f + 0.5)
	}
	return int(f + 0.5)
}

// formatFixed renders n / 10^scale with exactly scale decimals ("12.34"),
// without going through float64.
func formatFixed(dst []byte, n int64, scale int) []byte {
	if n < 0 {
		dst = append(dst, '-')
		n = -n
	}
	s := strconv.AppendInt(nil, n, 10)
	for len(s) <= scale {
		s = append([]byte{'0'}, s...)
	}
	dst = append(dst, s[:len(s)-scale]...)
	if scale > 0 {
		dst = append(dst, '.')
		dst = append(dst, s[len(s)-scale:]...)
	}
	return dst
}
