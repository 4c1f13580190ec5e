// Package switchback measures a step whose settings take effect on reload
// (settings.Switchable) within ONE continuous run that alternates the two
// arms every few seconds, instead of separate runs minutes apart (issue 29
// point 1). Drift slower than a block (a neighbour's load, cache warming,
// table growth) falls on both arms of a pair alike, and a pair of blocks
// costs seconds where a pair of runs costs minutes.
//
// Each pair of blocks is A then B or B then A, in a shuffled order with as
// many of each (so a linear drift adds +d to half the pairs and −d to the
// other half, and the estimate removes it: Estimate). Every switch goes
// through the caller's Apply, the one path that writes settings (ALTER
// SYSTEM and pg_reload_conf, with the refused-settings rule and the restore
// record); its time is recorded when the reload returned, and the seconds of
// a settling gap after it are dropped.
package switchback

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Arms.
const (
	A = "A" // the baseline
	B = "B" // the step
)

// Design is how a switchback run alternates.
type Design struct {
	Block  time.Duration // each arm's stretch, switch to switch
	Settle time.Duration // dropped after every switch, while the reload reaches every backend
	Pairs  int           // A/B pairs of blocks
	Seed   uint64        // the order of the pairs
}

// Defaults: 10 s blocks with 2 s dropped after each switch. A reload
// reaches an idle backend at its next command, a busy one within its
// transaction; commit_delay or wal_writer_delay act on the next commit.
const (
	DefaultBlock  = 10 * time.Second
	DefaultSettle = 2 * time.Second
)

// Fit is the design of a switchback run of about total: blocks as long as
// DefaultBlock while that leaves at least 8 pairs, shorter down to 4 s (with
// 1 s settling) otherwise, since the interval's t quantile needs degrees of
// freedom more than long blocks (4 pairs leave 2: t = 4.3; 8 leave 6: 2.4).
func Fit(total time.Duration) Design {
	block := min(DefaultBlock, max(4*time.Second, total/16))
	settle := DefaultSettle
	if block < DefaultBlock {
		settle = time.Second
	}
	return Design{Block: block, Settle: settle, Pairs: max(2, int(total/(2*block)))}
}

// Check refuses a design that leaves no whole measured second per block.
func (d Design) Check() error {
	switch {
	case d.Pairs < 2:
		return fmt.Errorf("switchback: %d pairs; an interval needs at least 2", d.Pairs)
	case d.Settle < 0 || d.Block-d.Settle < 2*time.Second:
		return fmt.Errorf("switchback: blocks of %s with %s settling leave under 2 measured seconds", d.Block, d.Settle)
	}
	return nil
}

// Duration is the whole run: every block of every pair.
func (d Design) Duration() time.Duration { return time.Duration(2*d.Pairs) * d.Block }

// Order is the arm of each block: pairs of A B or B A, as many of each
// (one more A B when the pairs are odd), shuffled by Seed.
func (d Design) Order() []string {
	firstB := make([]bool, d.Pairs)
	for i := range d.Pairs / 2 {
		firstB[i] = true
	}
	r := rand.New(rand.NewPCG(d.Seed, 0x5b))
	r.Shuffle(len(firstB), func(i, j int) { firstB[i], firstB[j] = firstB[j], firstB[i] })
	out := make([]string, 0, 2*d.Pairs)
	for _, b := range firstB {
		if b {
			out = append(out, B, A)
		} else {
			out = append(out, A, B)
		}
	}
	return out
}
