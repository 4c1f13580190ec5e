package tpcc

import (
	"strings"
	"testing"
)

func TestLastName(t *testing.T) {
	for _, tc := range []struct {
		num  int
		want string
	}{
		{0, "BARBARBAR"},
		{371, "PRICALLYOUGHT"}, // the example of clause 4.3.2.3
		{999, "EINGEINGEING"},
		{40, "BARPRESBAR"},
	} {
		if got := string(AppendLastName(nil, tc.num)); got != tc.want {
			t.Errorf("AppendLastName(%d) = %q, want %q", tc.num, got, tc.want)
		}
	}
}

func TestNURandRangeAndSkew(t *testing.T) {
	g := NewRand(1)
	for _, tc := range []struct{ a, x, y, c int }{
		{NURandCLast, 0, 999, 123}, {NURandCID, 1, 3000, 700}, {NURandOLIID, 1, 100000, 5000},
	} {
		counts := map[int]int{}
		for range 200_000 {
			v := g.NURand(tc.a, tc.x, tc.y, tc.c)
			if v < tc.x || v > tc.y {
				t.Fatalf("NURand(%d,%d,%d) = %d out of range", tc.a, tc.x, tc.y, v)
			}
			counts[v]++
		}
		// NURand is skewed: the most frequent value is far above the uniform share.
		most := 0
		for _, n := range counts {
			most = max(most, n)
		}
		uniform := 200_000 / (tc.y - tc.x + 1)
		if most < 2*max(uniform, 1) {
			t.Errorf("NURand(%d,%d,%d): most frequent value seen %d times, uniform share %d: not skewed", tc.a, tc.x, tc.y, most, uniform)
		}
	}
}

func TestRunConstantsDelta(t *testing.T) {
	for seed := range uint64(2000) {
		g := NewRand(seed)
		load := NewLoadConstants(g)
		run := NewRunConstants(load, g)
		d := run.CLast - load.CLast
		if d < 0 {
			d = -d
		}
		if d < 65 || d > 119 || d == 96 || d == 112 {
			t.Fatalf("seed %d: C_LOAD %d C_RUN %d: delta %d breaks clause 2.1.6.1", seed, load.CLast, run.CLast, d)
		}
		if run.CLast < 0 || run.CLast > NURandCLast || run.CID < 0 || run.CID > NURandCID || run.OLIID < 0 || run.OLIID > NURandOLIID {
			t.Fatalf("seed %d: run constants out of range: %+v", seed, run)
		}
	}
}

func TestStringsAndRanges(t *testing.T) {
	g := NewRand(7)
	seen := map[byte]bool{}
	for range 10_000 {
		s := g.AString(8, 16)
		if len(s) < 8 || len(s) > 16 {
			t.Fatalf("AString(8,16) length %d", len(s))
		}
		for i := range len(s) {
			if !strings.ContainsRune(alnum, rune(s[i])) {
				t.Fatalf("AString produced %q", s)
			}
			seen[s[i]] = true
		}
		n := g.NString(16, 16)
		if len(n) != 16 || strings.Trim(n, "0123456789") != "" {
			t.Fatalf("NString(16,16) = %q", n)
		}
		z := string(g.AppendZip(nil))
		if len(z) != 9 || !strings.HasSuffix(z, "11111") || strings.Trim(z, "0123456789") != "" {
			t.Fatalf("zip %q", z)
		}
		if f := g.Float(0, 0.2, 4); f < 0 || f > 0.2 {
			t.Fatalf("Float(0, 0.2, 4) = %v", f)
		}
		if v := g.IntRange(5, 15); v < 5 || v > 15 {
			t.Fatalf("IntRange(5,15) = %d", v)
		}
	}
	if len(seen) != len(alnum) {
		t.Errorf("a-strings used %d of the %d alphanumeric characters", len(seen), len(alnum))
	}
	orig := 0
	for range 10_000 {
		s := string(g.AppendOriginal(nil, 26, 50))
		if len(s) < 26 || len(s) > 50 {
			t.Fatalf("AppendOriginal length %d", len(s))
		}
		if strings.Contains(s, "ORIGINAL") {
			orig++
		}
	}
	if orig < 900 || orig > 1100 {
		t.Errorf("ORIGINAL in %d of 10,000 strings, want about 1,000", orig)
	}
}

func TestRandDeterministic(t *testing.T) {
	a, b := NewRand(99), NewRand(99)
	for range 1000 {
		if a.IntRange(0, 1<<30) != b.IntRange(0, 1<<30) || a.AString(5, 10) != b.AString(5, 10) {
			t.Fatal("two generators with the same seed diverged")
		}
	}
}
