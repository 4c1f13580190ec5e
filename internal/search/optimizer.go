package search

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
)

// Method is how the optimizer chooses points once its start points are used.
type Method int

const (
	// TPE is the Tree-structured Parzen Estimator (tpe.go).
	TPE Method = iota
	// Random draws every point uniformly (in log space for Log
	// dimensions): the baseline a model-based search must beat.
	Random
)

// Options configure an Optimizer. The zero value is a sensible TPE search.
type Options struct {
	// Seed makes the search reproducible: the same seed, space, options and
	// observations give the same suggestions.
	Seed int64
	// Method is TPE unless set to Random.
	Method Method
	// WarmStart points are suggested first, in order (the tuner's known
	// configurations: the server's defaults, advise's configuration).
	WarmStart []Point
	// Startup is how many points, warm-start ones included, are chosen
	// without the model, by Latin hypercube sampling; 0 means
	// DefaultStartup.
	Startup int
	// Candidates is how many draws from the good density TPE scores per
	// suggestion; 0 means DefaultCandidates.
	Candidates int
	// Gamma is the fraction of successful observations TPE counts as good;
	// 0 means DefaultGamma.
	Gamma float64
	// Projection, when above 0 and below the number of dimensions, makes
	// the search run in that many coordinates mapped into the full space
	// by a random embedding (projection.go), for spaces too large for the
	// budget. Warm-start points and observations of points the optimizer
	// did not suggest are mapped back by least squares.
	Projection int
}

// Defaults for the zero Options, chosen for budgets of 25 to 100 trials.
const (
	DefaultStartup    = 8
	DefaultCandidates = 24
	DefaultGamma      = 0.2
)

// Optimizer proposes points to evaluate and learns from their outcomes
// (ask/tell). It is not safe for concurrent use.
type Optimizer struct {
	space   *Space
	opts    Options
	rng     *rand.Rand
	enc     encoding
	queue   []Point              // warm-start then space-filling points, in order
	coords  map[string][]float64 // coordinates of points this optimizer suggested
	results ledger
}

// New returns an optimizer over space. It fails on invalid options or
// warm-start points outside the space.
func New(space *Space, opts Options) (*Optimizer, error) {
	if space == nil {
		return nil, fmt.Errorf("no search space")
	}
	if opts.Method != TPE && opts.Method != Random {
		return nil, fmt.Errorf("unknown search method %d", opts.Method)
	}
	if opts.Startup < 0 || opts.Candidates < 0 || opts.Projection < 0 {
		return nil, fmt.Errorf("startup (%d), candidates (%d) and projection (%d) must not be negative",
			opts.Startup, opts.Candidates, opts.Projection)
	}
	if opts.Gamma < 0 || opts.Gamma >= 1 || math.IsNaN(opts.Gamma) {
		return nil, fmt.Errorf("gamma %g is not a fraction in [0, 1)", opts.Gamma)
	}
	if opts.Startup == 0 {
		opts.Startup = DefaultStartup
	}
	if opts.Candidates == 0 {
		opts.Candidates = DefaultCandidates
	}
	if opts.Gamma == 0 {
		opts.Gamma = DefaultGamma
	}
	o := &Optimizer{
		space:   space,
		opts:    opts,
		rng:     rand.New(rand.NewSource(opts.Seed)),
		coords:  map[string][]float64{},
		results: newLedger(),
	}
	o.enc = directEncoding{space}
	if opts.Projection > 0 && opts.Projection < space.Len() {
		o.enc = newProjection(space, opts.Projection, o.rng)
	}
	for i, p := range opts.WarmStart {
		if err := space.check(p); err != nil {
			return nil, fmt.Errorf("warm-start point %d: %w", i+1, err)
		}
		o.queue = append(o.queue, append(Point(nil), p...))
	}
	if opts.Method == TPE {
		for _, z := range latinHypercube(max(opts.Startup-len(opts.WarmStart), 0), o.enc.choices(), o.rng) {
			o.queue = append(o.queue, o.remember(z))
		}
	}
	return o, nil
}

// Suggest returns the next point to evaluate: the warm-start points first,
// then the space-filling start points (each skipped if already observed),
// then the method's choice. Calling it
// again before Observe gives another point, so several may be evaluated at
// once.
func (o *Optimizer) Suggest() Point {
	for len(o.queue) > 0 {
		p := o.queue[0]
		o.queue = o.queue[1:]
		if _, done := o.results.byKey[p.key()]; !done { // observed already: a resumed search
			return append(Point(nil), p...)
		}
	}
	var z []float64
	if o.opts.Method == TPE {
		z = o.tpe()
	} else {
		z = uniform(o.enc.choices(), o.rng)
	}
	return o.remember(z)
}

// remember decodes coordinates into a point and keeps the coordinates, so
// the model learns from where it sampled rather than from a least-squares
// preimage.
func (o *Optimizer) remember(z []float64) Point {
	p := o.enc.decode(z)
	if _, seen := o.coords[p.key()]; !seen {
		o.coords[p.key()] = z
	}
	return p
}

// coordsOf gives the coordinates the model uses for p.
func (o *Optimizer) coordsOf(p Point) []float64 {
	if z, ok := o.coords[p.key()]; ok {
		return z
	}
	return o.enc.encode(p)
}

// Observe records the outcome of evaluating p: value is the objective, to
// be maximised (negate a latency), and failed says the evaluation did not
// produce one (the server did not start or crashed); value is then ignored.
// A point observed more than once is judged on the mean of its successful
// observations; a point that failed even once counts as bad for the model
// and is never returned by Best or TopK. p need not come from Suggest.
func (o *Optimizer) Observe(p Point, value float64, failed bool) error {
	if err := o.space.check(p); err != nil {
		return fmt.Errorf("observe: %w", err)
	}
	if !failed && (math.IsNaN(value) || math.IsInf(value, 0)) {
		return fmt.Errorf("observe: objective %g is not a finite number (report a failure instead)", value)
	}
	o.results.add(p, value, failed)
	return nil
}

// Observations is the number of Observe calls recorded.
func (o *Optimizer) Observations() int { return o.results.observations }

// Best is the point with the highest estimated objective among those that
// never failed (see TopK); false when there is none yet.
func (o *Optimizer) Best() (Result, bool) {
	top := o.TopK(1)
	if len(top) == 0 {
		return Result{}, false
	}
	return top[0], true
}

// TopK returns up to k distinct points that never failed, best first by
// Estimate. Re-evaluating them and observing the outcomes sharpens the
// estimates: the tuner should do that before it declares a winner.
func (o *Optimizer) TopK(k int) []Result {
	ranked := o.results.ranked()
	if k < len(ranked) {
		ranked = ranked[:max(k, 0)]
	}
	return ranked
}

// modelData splits the distinct observed points, as coordinates, into the
// good successes (the Gamma share with the highest means), the other
// successes, and the points that failed.
func (o *Optimizer) modelData() (good, rest, failed [][]float64) {
	var ok []*record
	for _, r := range o.results.records {
		if r.failures > 0 {
			failed = append(failed, o.coordsOf(r.point))
		} else {
			ok = append(ok, r)
		}
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].mean() > ok[j].mean() })
	nGood := 0
	if len(ok) > 0 {
		// At most 25 good points, as Optuna: beyond that l(x) only blurs.
		nGood = min(max(1, int(math.Ceil(o.opts.Gamma*float64(len(ok))))), 25)
	}
	for i, r := range ok {
		if i < nGood {
			good = append(good, o.coordsOf(r.point))
		} else {
			rest = append(rest, o.coordsOf(r.point))
		}
	}
	return good, rest, failed
}
