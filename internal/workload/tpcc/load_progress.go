package tpcc

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// loadProgress shows how the data phase advances: a live bar with rows/s and
// ETA on a terminal, or a plain line every few seconds otherwise (logs, CI).
// The workers only add to rows; a ticker goroutine does all the printing.
type loadProgress struct {
	rows  *atomic.Int64
	out   io.Writer
	bar   *progressbar.ProgressBar
	total int64
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

// progressLineEvery is how often the plain (non-terminal) output prints a line.
const progressLineEvery = 5 * time.Second

func newLoadProgress(out io.Writer, bar bool, total int64) *loadProgress {
	p := &loadProgress{rows: new(atomic.Int64), out: out, total: total, start: time.Now(), done: make(chan struct{})}
	if out == nil {
		return p
	}
	every := progressLineEvery
	if bar {
		every = 200 * time.Millisecond
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(out),
			progressbar.OptionSetDescription("loading rows"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("rows"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionUseANSICodes(true),
		)
	}
	p.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				p.show()
			}
		}
	})
	return p
}

func (p *loadProgress) show() {
	n := p.rows.Load()
	if p.bar != nil {
		_ = p.bar.Set64(n)
		return
	}
	el := time.Since(p.start).Seconds()
	rate := float64(n) / max(el, 1e-9)
	eta := "?"
	if rate > 0 {
		eta = (time.Duration(float64(p.total-n)/rate) * time.Second).Round(time.Second).String()
	}
	fmt.Fprintf(p.out, "loading: %d/%d rows (%.0f%%), %.0f rows/s, ETA %s\n", n, p.total, 100*float64(n)/float64(max(p.total, 1)), rate, eta)
}

// phase ends the data bar (once) and announces the next step.
func (p *loadProgress) phase(what string) {
	p.stop()
	if p.out != nil {
		fmt.Fprintf(p.out, "%6.1fs  %s\n", time.Since(p.start).Seconds(), what)
	}
}

// stop ends the ticker and completes the bar.
func (p *loadProgress) stop() {
	p.once.Do(func() {
		close(p.done)
		p.wg.Wait()
		if p.out == nil {
			return
		}
		if p.bar != nil {
			_ = p.bar.Set64(p.rows.Load())
			_ = p.bar.Finish()
			fmt.Fprintln(p.out)
			return
		}
		el := time.Since(p.start).Seconds()
		fmt.Fprintf(p.out, "loaded %d rows in %.1fs (%.0f rows/s)\n", p.rows.Load(), el, float64(p.rows.Load())/max(el, 1e-9))
	})
}
