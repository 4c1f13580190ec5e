package search

import "math/rand"

// The model never sees a Space directly: it works on coordinates, each either
// continuous on [0, 1] or categorical with a number of choices. An encoding
// maps points to coordinates and back; the direct one has a coordinate per
// dimension, the projected one (projection.go) fewer.
type encoding interface {
	// choices is, per coordinate, 0 for continuous or the number of choices.
	choices() []int
	// decode turns coordinates into a valid point of the space.
	decode(z []float64) Point
	// encode turns a point into coordinates: exactly for the direct
	// encoding, a least-squares preimage for the projected one.
	encode(p Point) []float64
}

type directEncoding struct{ space *Space }

func (e directEncoding) choices() []int {
	out := make([]int, len(e.space.dims))
	for i, d := range e.space.dims {
		if d.Kind == Categorical {
			out[i] = len(d.Choices)
		}
	}
	return out
}

func (e directEncoding) decode(z []float64) Point {
	p := make(Point, len(z))
	for i, d := range e.space.dims {
		if d.Kind == Categorical {
			p[i] = z[i] // already an index
		} else {
			p[i] = d.fromUnit(z[i])
		}
	}
	return p
}

func (e directEncoding) encode(p Point) []float64 {
	z := make([]float64, len(p))
	for i, d := range e.space.dims {
		if d.Kind == Categorical {
			z[i] = p[i]
		} else {
			z[i] = d.toUnit(p[i])
		}
	}
	return z
}

// uniform draws coordinates uniformly: continuous on [0, 1], categorical
// with equal chances.
func uniform(choices []int, rng *rand.Rand) []float64 {
	z := make([]float64, len(choices))
	for i, n := range choices {
		if n > 0 {
			z[i] = float64(rng.Intn(n))
		} else {
			z[i] = rng.Float64()
		}
	}
	return z
}

// latinHypercube draws n points so that, on every coordinate, each of n
// equal strata of [0, 1] holds exactly one point (McKay et al. 1979): a
// handful of start points then cover each dimension's whole range instead of
// clumping as independent draws do. A categorical coordinate takes the
// choice its stratum falls in, so choices are spread evenly too.
func latinHypercube(n int, choices []int, rng *rand.Rand) [][]float64 {
	pts := make([][]float64, n)
	for k := range pts {
		pts[k] = make([]float64, len(choices))
	}
	for i, c := range choices {
		perm := rng.Perm(n)
		for k := range pts {
			u := (float64(perm[k]) + rng.Float64()) / float64(n)
			if c > 0 {
				pts[k][i] = float64(min(int(u*float64(c)), c-1))
			} else {
				pts[k][i] = u
			}
		}
	}
	return pts
}
