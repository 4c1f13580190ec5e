package switchback

import (
	"context"
	"fmt"
	"time"
)

// Switch is one change of arm: the block it starts, and when the reload
// that made it returned.
type Switch struct {
	Arm   string    `json:"arm"`
	Block int       `json:"block"`
	At    time.Time `json:"at"`
}

// Apply writes an arm's settings and reloads: the caller's one path for
// settings (it refuses what pgoltp never sets; the restore record covers
// them).
type Apply func(ctx context.Context, values map[string]string) error

// Workload runs for d and returns when its per-second series starts (second
// i covers start+i s .. start+i+1 s) and the committed transactions of each.
type Workload func(ctx context.Context, d time.Duration) (start time.Time, perSecond []float64, err error)

// Result is a switchback run: its switches, its blocks and B's effect.
type Result struct {
	Design   Design    `json:"design"`
	Switches []Switch  `json:"switches"`
	Blocks   []Block   `json:"blocks"`
	Start    time.Time `json:"start"`
}

// Run applies the first block's arm, starts the workload for the design's
// duration and, while it goes, switches arms at every block boundary
// (measured from the run's start). A failed switch stops the run's use: the
// error is returned after the workload ends.
func Run(ctx context.Context, d Design, a, b map[string]string, apply Apply, w Workload) (*Result, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	order := d.Order()
	arm := func(name string) map[string]string {
		if name == B {
			return b
		}
		return a
	}
	if err := apply(ctx, arm(order[0])); err != nil {
		return nil, fmt.Errorf("switchback, block 1 (%s): %w", order[0], err)
	}
	res := &Result{Design: d, Switches: []Switch{{Arm: order[0], Block: 0, At: time.Now()}}}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	started := time.Now()
	switched := make(chan error, 1)
	go func() { switched <- res.switchAll(runCtx, started, order, arm, apply) }()
	start, perSecond, err := w(runCtx, d.Duration())
	cancel()
	serr := <-switched
	if err != nil {
		return res, err
	}
	if serr != nil {
		return res, serr
	}
	res.Start = start
	res.Switches[0].At = start // the first arm was in place before the run began
	res.Blocks = Blocks(start, perSecond, res.Switches, d.Settle)
	return res, nil
}

// switchAll applies each block's arm at its boundary, started + i×Block,
// and records when the reload returned.
func (r *Result) switchAll(ctx context.Context, started time.Time, order []string, arm func(string) map[string]string, apply Apply) error {
	for i := 1; i < len(order); i++ {
		wait := time.Until(started.Add(time.Duration(i) * r.Design.Block))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		if err := apply(ctx, arm(order[i])); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("switchback, block %d (%s): %w", i+1, order[i], err)
		}
		r.Switches = append(r.Switches, Switch{Arm: order[i], Block: i, At: time.Now()})
	}
	return nil
}
