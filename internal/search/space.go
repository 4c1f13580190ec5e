package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind says how a dimension's values are drawn and compared.
type Kind int

const (
	// Continuous values are real numbers between Low and High.
	Continuous Kind = iota
	// Integer values are whole numbers between Low and High.
	Integer
	// Categorical values are one of Choices, unordered (enum and bool settings).
	Categorical
)

// Dimension is one named axis of a search space. Build it with Float, Int or
// Choice rather than by hand: they set the fields consistently.
type Dimension struct {
	Name    string
	Kind    Kind
	Low     float64  // Continuous and Integer: smallest value
	High    float64  // Continuous and Integer: largest value (Low == High fixes the dimension)
	Log     bool     // Continuous and Integer: search uniformly in log(value), for multiplicative effects
	Choices []string // Categorical: the values, in a fixed order
}

// Float is a continuous dimension on [low, high], searched in log space when log is set.
func Float(name string, low, high float64, log bool) Dimension {
	return Dimension{Name: name, Kind: Continuous, Low: low, High: high, Log: log}
}

// Int is an integer dimension on [low, high], searched in log space when log is set.
func Int(name string, low, high int64, log bool) Dimension {
	return Dimension{Name: name, Kind: Integer, Low: float64(low), High: float64(high), Log: log}
}

// Choice is a categorical dimension taking one of choices.
func Choice(name string, choices ...string) Dimension {
	return Dimension{Name: name, Kind: Categorical, Choices: choices}
}

// Space is an ordered set of dimensions with distinct names.
type Space struct {
	dims  []Dimension
	index map[string]int
}

// NewSpace checks the dimensions and returns the space they span.
func NewSpace(dims ...Dimension) (*Space, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("search space has no dimensions")
	}
	s := &Space{dims: append([]Dimension(nil), dims...), index: make(map[string]int, len(dims))}
	for i, d := range s.dims {
		if d.Name == "" {
			return nil, fmt.Errorf("dimension %d has no name", i)
		}
		if _, dup := s.index[d.Name]; dup {
			return nil, fmt.Errorf("dimension %q appears twice", d.Name)
		}
		s.index[d.Name] = i
		if err := d.check(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (d Dimension) check() error {
	switch d.Kind {
	case Continuous, Integer:
		if math.IsNaN(d.Low) || math.IsNaN(d.High) || math.IsInf(d.Low, 0) || math.IsInf(d.High, 0) || d.Low > d.High {
			return fmt.Errorf("dimension %q: bounds [%g, %g] are not a finite interval", d.Name, d.Low, d.High)
		}
		if d.Kind == Integer && (d.Low != math.Trunc(d.Low) || d.High != math.Trunc(d.High)) {
			return fmt.Errorf("dimension %q: integer bounds [%g, %g] are not whole", d.Name, d.Low, d.High)
		}
		if d.Log && d.logLow() <= 0 {
			return fmt.Errorf("dimension %q: log scale needs a lower bound above 0 (integers: at least 1), got %g", d.Name, d.Low)
		}
	case Categorical:
		if len(d.Choices) == 0 {
			return fmt.Errorf("dimension %q has no choices", d.Name)
		}
		seen := map[string]bool{}
		for _, c := range d.Choices {
			if seen[c] {
				return fmt.Errorf("dimension %q: choice %q appears twice", d.Name, c)
			}
			seen[c] = true
		}
	default:
		return fmt.Errorf("dimension %q: unknown kind %d", d.Name, d.Kind)
	}
	return nil
}

// Dims returns the dimensions in order; Point values follow the same order.
func (s *Space) Dims() []Dimension { return append([]Dimension(nil), s.dims...) }

// Len is the number of dimensions.
func (s *Space) Len() int { return len(s.dims) }

// Point is one configuration: a value per dimension in the order of
// Space.Dims. A Continuous or Integer dimension holds its value (integers are
// whole), a Categorical one holds the index of its choice.
type Point []float64

// key identifies a point exactly, so repeated observations aggregate.
func (p Point) key() string {
	var b strings.Builder
	for i, v := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return b.String()
}

// Value is the numeric value of the named Continuous or Integer dimension.
func (s *Space) Value(p Point, name string) (float64, error) {
	i, ok := s.index[name]
	if !ok {
		return 0, fmt.Errorf("no dimension %q", name)
	}
	if s.dims[i].Kind == Categorical {
		return 0, fmt.Errorf("dimension %q is categorical: use Choice", name)
	}
	return p[i], nil
}

// Choice is the chosen value of the named Categorical dimension.
func (s *Space) Choice(p Point, name string) (string, error) {
	i, ok := s.index[name]
	if !ok {
		return "", fmt.Errorf("no dimension %q", name)
	}
	if s.dims[i].Kind != Categorical {
		return "", fmt.Errorf("dimension %q is numeric: use Value", name)
	}
	return s.dims[i].Choices[int(p[i])], nil
}

// Format renders every value as text, by dimension name (integers without a
// fraction, categoricals as their choice).
func (s *Space) Format(p Point) map[string]string {
	out := make(map[string]string, len(s.dims))
	for i, d := range s.dims {
		if d.Kind == Categorical {
			out[d.Name] = d.Choices[int(p[i])]
		} else {
			out[d.Name] = strconv.FormatFloat(p[i], 'g', -1, 64)
		}
	}
	return out
}

// PointOf builds a point from values by dimension name: a number (float64,
// int, int64) for a numeric dimension, a string for a categorical one. Every
// dimension must be given and inside its bounds. Use it for warm starts.
func (s *Space) PointOf(values map[string]any) (Point, error) {
	p := make(Point, len(s.dims))
	for name := range values {
		if _, ok := s.index[name]; !ok {
			return nil, fmt.Errorf("no dimension %q in the search space", name)
		}
	}
	for i, d := range s.dims {
		v, ok := values[d.Name]
		if !ok {
			return nil, fmt.Errorf("no value for dimension %q", d.Name)
		}
		if d.Kind == Categorical {
			c, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("dimension %q: want a string choice, got %T", d.Name, v)
			}
			idx := -1
			for j, choice := range d.Choices {
				if choice == c {
					idx = j
				}
			}
			if idx < 0 {
				return nil, fmt.Errorf("dimension %q: %q is not one of %s", d.Name, c, strings.Join(d.Choices, ", "))
			}
			p[i] = float64(idx)
			continue
		}
		var x float64
		switch n := v.(type) {
		case float64:
			x = n
		case int:
			x = float64(n)
		case int64:
			x = float64(n)
		default:
			return nil, fmt.Errorf("dimension %q: want a number, got %T", d.Name, v)
		}
		if math.IsNaN(x) || x < d.Low || x > d.High {
			return nil, fmt.Errorf("dimension %q: %g is outside [%g, %g]", d.Name, x, d.Low, d.High)
		}
		if d.Kind == Integer && x != math.Trunc(x) {
			return nil, fmt.Errorf("dimension %q: %g is not whole", d.Name, x)
		}
		p[i] = x
	}
	return p, nil
}

// check reports whether p is a valid point of s.
func (s *Space) check(p Point) error {
	if len(p) != len(s.dims) {
		return fmt.Errorf("point has %d values, the space %d dimensions", len(p), len(s.dims))
	}
	for i, d := range s.dims {
		v := p[i]
		switch {
		case math.IsNaN(v):
			return fmt.Errorf("dimension %q: value is NaN", d.Name)
		case d.Kind == Categorical && (v != math.Trunc(v) || v < 0 || int(v) >= len(d.Choices)):
			return fmt.Errorf("dimension %q: %g is not a choice index", d.Name, v)
		case d.Kind != Categorical && (v < d.Low || v > d.High):
			return fmt.Errorf("dimension %q: %g is outside [%g, %g]", d.Name, v, d.Low, d.High)
		case d.Kind == Integer && v != math.Trunc(v):
			return fmt.Errorf("dimension %q: %g is not whole", d.Name, v)
		}
	}
	return nil
}

// The unit interval [0, 1] is where the search works: each numeric dimension
// maps onto it linearly in value or in log(value); an integer dimension owns
// the width of [k-0.5, k+0.5] around each value k, so every integer gets an
// equal share of the interval.

func (d Dimension) logLow() float64 {
	if d.Kind == Integer {
		return d.Low - 0.5
	}
	return d.Low
}

// span is the interval of the transformed value that [0, 1] covers.
func (d Dimension) span() (lo, hi float64) {
	lo, hi = d.Low, d.High
	if d.Kind == Integer {
		lo, hi = lo-0.5, hi+0.5
	}
	if d.Log {
		lo, hi = math.Log(lo), math.Log(hi)
	}
	return lo, hi
}

// toUnit maps a value of d to [0, 1]; a categorical index k of n to the
// middle of its n-th share.
func (d Dimension) toUnit(v float64) float64 {
	if d.Kind == Categorical {
		return (v + 0.5) / float64(len(d.Choices))
	}
	lo, hi := d.span()
	if hi == lo {
		return 0.5
	}
	if d.Log {
		v = math.Log(v)
	}
	return clamp01((v - lo) / (hi - lo))
}

// fromUnit maps u in [0, 1] back to a valid value of d.
func (d Dimension) fromUnit(u float64) float64 {
	u = clamp01(u)
	if d.Kind == Categorical {
		n := len(d.Choices)
		return math.Min(math.Floor(u*float64(n)), float64(n-1))
	}
	lo, hi := d.span()
	v := lo + u*(hi-lo)
	if d.Log {
		v = math.Exp(v)
	}
	if d.Kind == Integer {
		v = math.Round(v)
	}
	return math.Max(d.Low, math.Min(d.High, v))
}

func clamp01(u float64) float64 { return math.Max(0, math.Min(1, u)) }
