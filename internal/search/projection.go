package search

import "math/rand"

// projectedEncoding searches a space of many dimensions through a few
// coordinates, LlamaTune's idea (Kanellis et al., VLDB 2022) of a random
// low-dimensional embedding, in its hashing form HeSBO (Nayebi et al., ICML
// 2019): each dimension i of the space follows one coordinate h(i), with a
// random sign s(i), in the centred unit cube:
//
//	x_i = s(i) * y_h(i),   x, y in [-1, 1]
//
// This is a linear projection whose matrix has one ±1 per row, so it never
// leaves the box (the clip that a dense Gaussian projection, REMBO, needs is
// kept only as a guard) and every point it reaches is a proper
// configuration. Dimensions are dealt to coordinates round-robin after a
// shuffle, so each coordinate drives at least one dimension.
type projectedEncoding struct {
	space *Space
	dim   []int     // h(i): the coordinate dimension i follows
	sign  []float64 // s(i): +1 or -1
	d     int
}

func newProjection(space *Space, d int, rng *rand.Rand) *projectedEncoding {
	n := len(space.dims)
	e := &projectedEncoding{space: space, dim: make([]int, n), sign: make([]float64, n), d: d}
	for k, i := range rng.Perm(n) {
		e.dim[i] = k % d
		e.sign[i] = 1
		if rng.Intn(2) == 0 {
			e.sign[i] = -1
		}
	}
	return e
}

func (e *projectedEncoding) choices() []int { return make([]int, e.d) }

func (e *projectedEncoding) decode(z []float64) Point {
	p := make(Point, len(e.space.dims))
	for i, d := range e.space.dims {
		x := e.sign[i] * (2*z[e.dim[i]] - 1)
		p[i] = d.fromUnit((x + 1) / 2) // fromUnit clips to the box
	}
	return p
}

// encode is the least-squares preimage: the columns of the projection are
// orthogonal, so each coordinate is the mean of its dimensions' signed
// values. A coordinate decoded and encoded again comes back unchanged up to
// integer and categorical snapping.
func (e *projectedEncoding) encode(p Point) []float64 {
	sum := make([]float64, e.d)
	count := make([]float64, e.d)
	for i, d := range e.space.dims {
		x := 2*d.toUnit(p[i]) - 1
		sum[e.dim[i]] += e.sign[i] * x
		count[e.dim[i]]++
	}
	z := make([]float64, e.d)
	for k := range z {
		z[k] = 0.5
		if count[k] > 0 {
			z[k] = clamp01((sum[k]/count[k] + 1) / 2)
		}
	}
	return z
}
