package lang

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLibmIsCorrectlyRounded: known values where Go's math differs from the
// correctly rounded result, and agreement within an ulp with Go elsewhere.
func TestLibmIsCorrectlyRounded(t *testing.T) {
	if got := formatDouble(cExp(1.5)); got != "4.48168907033806" {
		t.Errorf("exp(1.5) prints %s, glibc's prints 4.48168907033806", got)
	}
	for _, c := range []struct{ got, want float64 }{
		{cPow(2, 10), 1024}, {cPow(-3, 3), -27}, {cPow(-2, -3), -0.125}, {cPow(0, 0), 1},
		{cLog(1), 0}, {cExp(0), 1}, {cPow(9, 0.5), 3}, {cLog(math.E), 1},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	// glibc's sin for these arguments (the range pgbench's Box-Muller uses)
	for _, c := range [][2]float64{
		{1.0, 0.8414709848078965}, {6.0, -0.27941549819892586}, {3.141592653589793, 1.2246467991473532e-16},
		{2.5, 0.5984721441039565}, {0.1, 0.09983341664682815}, {4.71238898038469, -1.0}, {1e-05, 9.999999999833334e-06},
		{2.034701269983068, 0.8943120780391299}, {0.9478133132026084, 0.8121416023583748},
		{4.089941916940695, -0.8124541913810097}, {0.45513061209615324, 0.43957963381279486},
		{3.3670459358417375, -0.22354819606439702}, {2.297691229743574, 0.7472415016104679},
		{0.3644179919766519, 0.356405566528495}, {3.188312743113666, -0.046703094868967815},
		{0.2355921702057036, 0.23341883867130986}, {2.7246761881093495, 0.4049429777250684},
		{0.4389145710308522, 0.42495717068213584}, {0.5699666726121587, 0.5396039900739626},
	} {
		if got := cSin(c[0]); got != c[1] {
			t.Errorf("sin(%v) = %v, glibc %v", c[0], got, c[1])
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		x := (r.Float64() - 0.5) * 1400
		if d := math.Abs(cExp(x)-math.Exp(x)) / math.Exp(x); d > 1e-15 {
			t.Fatalf("exp(%v): %v vs Go %v", x, cExp(x), math.Exp(x))
		}
		y := math.Exp((r.Float64() - 0.5) * 1400)
		if d := math.Abs(cLog(y) - math.Log(y)); d > 1e-15*math.Max(1, math.Abs(math.Log(y))) {
			t.Fatalf("log(%v): %v vs Go %v", y, cLog(y), math.Log(y))
		}
		if a := r.Float64() * 2 * math.Pi; math.Abs(cSin(a)-math.Sin(a)) > 1e-15 {
			t.Fatalf("sin(%v): %v vs Go %v", a, cSin(a), math.Sin(a))
		}
		b, e := r.Float64()*10, (r.Float64()-0.5)*20
		if d := math.Abs(cPow(b, e)-math.Pow(b, e)) / math.Pow(b, e); d > 1e-15 {
			t.Fatalf("pow(%v, %v): %v vs Go %v", b, e, cPow(b, e), math.Pow(b, e))
		}
	}
}
