package search

import (
	"math"
	"testing"
)

func TestNewSpaceRejectsBadDimensions(t *testing.T) {
	for _, tc := range []struct {
		name string
		dims []Dimension
	}{
		{"no dimensions", nil},
		{"no name", []Dimension{Float("", 0, 1, false)}},
		{"duplicate name", []Dimension{Float("a", 0, 1, false), Int("a", 0, 1, false)}},
		{"reversed bounds", []Dimension{Float("a", 2, 1, false)}},
		{"infinite bound", []Dimension{Float("a", 0, math.Inf(1), false)}},
		{"NaN bound", []Dimension{Float("a", math.NaN(), 1, false)}},
		{"log from zero", []Dimension{Float("a", 0, 10, true)}},
		{"log integer from zero", []Dimension{Int("a", 0, 10, true)}},
		{"fractional integer bounds", []Dimension{{Name: "a", Kind: Integer, Low: 0.5, High: 3}}},
		{"no choices", []Dimension{Choice("a")}},
		{"duplicate choice", []Dimension{Choice("a", "on", "on")}},
		{"unknown kind", []Dimension{{Name: "a", Kind: Kind(7)}}},
	} {
		if _, err := NewSpace(tc.dims...); err == nil {
			t.Errorf("%s: NewSpace accepted %+v", tc.name, tc.dims)
		}
	}
	if _, err := NewSpace(Int("a", 1, 10, true), Float("fixed", 3, 3, false), Choice("b", "only")); err != nil {
		t.Errorf("valid space rejected: %v", err)
	}
}

func TestUnitMappingRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		dim    Dimension
		values []float64
	}{
		{Float("lin", -5, 10, false), []float64{-5, 0, 2.5, 10}},
		{Float("log", 0.001, 1000, true), []float64{0.001, 1, 31.6, 1000}},
		{Int("int", 0, 7, false), []float64{0, 3, 7}},
		{Int("logint", 1, 1<<20, true), []float64{1, 2, 1024, 1 << 20}},
		{Float("fixed", 3, 3, false), []float64{3}},
		{Choice("c", "off", "on", "try"), []float64{0, 1, 2}},
	} {
		for _, v := range tc.values {
			u := tc.dim.toUnit(v)
			if u < 0 || u > 1 {
				t.Errorf("%s: toUnit(%g) = %g, outside [0, 1]", tc.dim.Name, v, u)
			}
			if back := tc.dim.fromUnit(u); math.Abs(back-v) > 1e-9*math.Max(1, math.Abs(v)) {
				t.Errorf("%s: fromUnit(toUnit(%g)) = %g", tc.dim.Name, v, back)
			}
		}
		for _, u := range []float64{0, 1, -0.5, 1.5} { // ends and beyond stay inside
			v := tc.dim.fromUnit(u)
			ok := v >= tc.dim.Low && v <= tc.dim.High
			if tc.dim.Kind == Categorical {
				ok = v >= 0 && int(v) < len(tc.dim.Choices) && v == math.Trunc(v)
			}
			if !ok || (tc.dim.Kind == Integer && v != math.Trunc(v)) {
				t.Errorf("%s: fromUnit(%g) = %g is not a valid value", tc.dim.Name, u, v)
			}
		}
	}
	// Every integer owns an equal share of the unit interval, the end
	// values included.
	d := Int("int", 0, 3, false)
	counts := map[float64]int{}
	for k := range 1000 {
		counts[d.fromUnit((float64(k)+0.5)/1000)]++
	}
	for v := range 4 {
		if counts[float64(v)] != 250 {
			t.Errorf("integer %d gets %d of 1000 unit steps, want 250", v, counts[float64(v)])
		}
	}
}

func TestPointOfChecksValues(t *testing.T) {
	s, err := NewSpace(Int("mb", 1, 100, true), Float("cost", 1, 4, false), Choice("jit", "off", "on"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.PointOf(map[string]any{"mb": int64(64), "cost": 1.5, "jit": "on"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Format(p); got["mb"] != "64" || got["cost"] != "1.5" || got["jit"] != "on" {
		t.Errorf("Format = %v", got)
	}
	if v, err := s.Value(p, "cost"); err != nil || v != 1.5 {
		t.Errorf("Value(cost) = %g, %v", v, err)
	}
	if c, err := s.Choice(p, "jit"); err != nil || c != "on" {
		t.Errorf("Choice(jit) = %q, %v", c, err)
	}
	if _, err := s.Value(p, "jit"); err == nil {
		t.Error("Value of a categorical dimension gave no error")
	}
	if _, err := s.Choice(p, "mb"); err == nil {
		t.Error("Choice of a numeric dimension gave no error")
	}
	for _, values := range []map[string]any{
		{"mb": 64, "cost": 1.5},                          // missing
		{"mb": 64, "cost": 1.5, "jit": "on", "other": 1}, // unknown
		{"mb": 640, "cost": 1.5, "jit": "on"},            // out of bounds
		{"mb": 6.5, "cost": 1.5, "jit": "on"},            // not whole
		{"mb": 64, "cost": "1.5", "jit": "on"},           // wrong type
		{"mb": 64, "cost": 1.5, "jit": "maybe"},          // not a choice
		{"mb": 64, "cost": 1.5, "jit": true},             // not a string
		{"mb": 64, "cost": math.NaN(), "jit": "on"},      // NaN
	} {
		if _, err := s.PointOf(values); err == nil {
			t.Errorf("PointOf accepted %v", values)
		}
	}
}
