package tpcc

import (
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/field"
)

// DefaultWeights is the 23-card deck of clause 5.2.4.2 in --weights order
// NO,P,OS,D,SL: 10 New-Order, 10 Payment, 1 each of the others. It meets the
// minimum mix exactly (Payment ≥ 43%, the three others ≥ 4% each).
func DefaultWeights() []int {
	w := make([]int, numDealt)
	for k := range w {
		w[k] = kinds[k].cards
	}
	return w
}

// ParseWeights parses a mix "NO,P,OS,D,SL" (BenchmarkSQL style, e.g.
// "45,43,4,4,4"): five non-negative integers, not all zero. The terminal deals
// a shuffled deck with that many cards of each kind.
func ParseWeights(s string) ([]int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != numDealt {
		return nil, field.New("Weights", s, "{} %q has %d numbers, want 5 (NO,P,OS,D,SL), e.g. 45,43,4,4,4", s, len(parts))
	}
	w := make([]int, numDealt)
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, field.New("Weights", s, "{} %q: %q is not a whole number", s, p)
		}
		w[i] = n
	}
	if err := driver.ValidateWeights(w); err != nil {
		return nil, field.New("Weights", s, "{} %q: %v", s, err)
	}
	return w, nil
}

// MixMeetsMinimum reports whether weights meet the minimum mix of clause
// 5.2.3 (Payment ≥ 43%, Order-Status, Delivery, Stock-Level ≥ 4% each).
func MixMeetsMinimum(weights []int) bool {
	total := 0
	for _, w := range weights {
		total += w
	}
	pct := func(k int) float64 { return 100 * float64(weights[k]) / float64(total) }
	return pct(kindPayment) >= 43 && pct(kindOrderStatus) >= 4 && pct(kindDelivery) >= 4 && pct(kindStockLevel) >= 4
}

// MaxTpmCPerWarehouse is the most New-Orders per minute that one warehouse's
// ten terminals (clause 4.2.2) can complete with the keying and mean think
// times of clause 5.2.5.7, multiplied by keyingScale, and no response time,
// for the mix weights. A terminal's mean cycle is Σ share × (keying + think)
// over the kinds, and the New-Order share of its cycles are New-Orders. With
// the 45/43/4/4/4 mix this is the standard's 12.86; the 23-card deck's mix
// (10/23 New-Orders) gives 12.61. Spec-mode efficiency is measured against it.
func MaxTpmCPerWarehouse(weights []int, keyingScale float64) float64 {
	total, cycle := 0, 0.0
	for k, w := range weights {
		total += w
		cycle += float64(w) * (kinds[k].keying + kinds[k].think).Seconds()
	}
	if total == 0 || cycle == 0 || keyingScale <= 0 {
		return 0
	}
	cycle = cycle / float64(total) * keyingScale
	noShare := float64(weights[kindNewOrder]) / float64(total)
	return districtsPerWarehouse * noShare * 60 / cycle
}
