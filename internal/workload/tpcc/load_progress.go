package tpcc

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// loadCounts is what the workers have streamed so far: rows and COPY bytes.
type loadCounts struct {
	rows, bytes atomic.Int64
}

// loadProgress shows how the data phase advances: a live bar with rows/s,
// MB/s and the time left on a terminal, or a plain line every few seconds
// otherwise (logs, CI). The workers only add to counts; a ticker goroutine
// does all the printing.
type loadProgress struct {
	counts *loadCounts
	out    io.Writer
	bar    *progressbar.ProgressBar
	total  int64
	start  time.Time
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// progressLineEvery is how often the plain (non-terminal) output prints a line.
const progressLineEvery = 5 * time.Second

// newLoadProgress starts showing the progress of a data phase of total rows
// on out (nil: nothing shown), a line every interval (0: progressLineEvery)
// or, with bar, a live bar.
func newLoadProgress(out io.Writer, bar bool, total int64, every time.Duration) *loadProgress {
	p := &loadProgress{counts: new(loadCounts), out: out, total: total, start: time.Now(), done: make(chan struct{})}
	if out == nil {
		return p
	}
	if every <= 0 {
		every = progressLineEvery
	}
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
	n, b := p.counts.rows.Load(), p.counts.bytes.Load()
	el := time.Since(p.start)
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("loading rows, %.1f MB/s", megabytesPerSecond(b, el)))
		_ = p.bar.Set64(n)
		return
	}
	fmt.Fprintln(p.out, loadProgressLine(n, p.total, b, el))
}

// loadProgressLine is the plain progress line: rows done of total, the rates so
// far, and the time left at that rate.
func loadProgressLine(rows, total, bytes int64, elapsed time.Duration) string {
	rate := float64(rows) / max(elapsed.Seconds(), 1e-9)
	eta := "?"
	if left := float64(total-rows) / rate; rate > 0 && left > 999*3600 {
		eta = "> 999h" // (and no overflow of a Duration)
	} else if rate > 0 {
		eta = time.Duration(left * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("loading: %d/%d rows (%.0f%%), %.0f rows/s, %.1f MB/s, ETA %s",
		rows, total, 100*float64(rows)/float64(max(total, 1)), rate, megabytesPerSecond(bytes, elapsed), eta)
}

// megabytesPerSecond is bytes over d in MB (10^6 bytes) per second.
func megabytesPerSecond(bytes int64, d time.Duration) float64 {
	return float64(bytes) / 1e6 / max(d.Seconds(), 1e-9)
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
			_ = p.bar.Set64(p.counts.rows.Load())
			_ = p.bar.Finish()
			fmt.Fprintln(p.out)
			return
		}
		el := time.Since(p.start)
		n := p.counts.rows.Load()
		fmt.Fprintf(p.out, "loaded %d rows in %.1fs (%.0f rows/s, %.1f MB/s of COPY data)\n",
			n, el.Seconds(), float64(n)/max(el.Seconds(), 1e-9), megabytesPerSecond(p.counts.bytes.Load(), el))
	})
}
