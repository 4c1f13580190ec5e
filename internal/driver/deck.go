package driver

import "fmt"

// Deck deals transaction kinds from a shuffled deck of cards, one card per
// weight unit (TPC-C clause 5.2.4.2: 10 New-Order, 10 Payment and 1 each of the
// three others make a 23-card deck that meets the minimum mix exactly). Each
// terminal owns its own Deck; it is not safe for concurrent use.
type Deck struct {
	cards []uint8
	next  int
	intN  func(n int) int // uniform in [0, n)
}

// NewDeck returns a deck with weights[k] cards of kind k, shuffled with intN
// (the terminal's own random source) whenever it is exhausted.
func NewDeck(weights []int, intN func(n int) int) (*Deck, error) {
	if err := ValidateWeights(weights); err != nil {
		return nil, err
	}
	d := &Deck{intN: intN}
	for k, w := range weights {
		for range w {
			d.cards = append(d.cards, uint8(k))
		}
	}
	d.next = len(d.cards)
	return d, nil
}

// maxCards bounds a deck: each card is a byte of every terminal's memory.
const maxCards = 10000

// ValidateWeights checks that weights are non-negative, small enough to deal as
// cards, and not all zero.
func ValidateWeights(weights []int) error {
	total := 0
	for _, w := range weights {
		if w < 0 {
			return fmt.Errorf("weight %d is negative", w)
		}
		if w > maxCards {
			// Checked one by one: huge weights would overflow the total.
			return fmt.Errorf("weight %d is more than %d cards", w, maxCards)
		}
		total += w
	}
	if total == 0 {
		return fmt.Errorf("all weights are zero")
	}
	if total > maxCards {
		return fmt.Errorf("weights add up to %d; at most %d cards", total, maxCards)
	}
	if len(weights) > 255 {
		return fmt.Errorf("%d kinds; at most 255", len(weights))
	}
	return nil
}

// Next returns the kind on the next card, reshuffling after the last one.
func (d *Deck) Next() int {
	if d.next == len(d.cards) {
		for i := len(d.cards) - 1; i > 0; i-- { // Fisher-Yates
			j := d.intN(i + 1)
			d.cards[i], d.cards[j] = d.cards[j], d.cards[i]
		}
		d.next = 0
	}
	k := d.cards[d.next]
	d.next++
	return int(k)
}
