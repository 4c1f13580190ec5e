package measure

import (
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// TestWindowsStayBoundedAndExact feeds three days of one-minute windows:
// the run never holds more than MaxWindows, the windows still tile the run
// end to end, every latency is still counted once, and a merged window's
// p99 is the p99 of all its raw latencies (merging histograms is exact).
func TestWindowsStayBoundedAndExact(t *testing.T) {
	t.Parallel()
	const windows = 3 * 24 * 60
	var snaps []Window
	raw := make([]*hdrhistogram.Histogram, windows)
	longest := 0
	for i := range windows {
		h := metrics.NewHistogram()
		// Every 97th window is slow: a merged window's p99 must show it.
		d := int64(1000 + i%50)
		if i%97 == 0 {
			d = 90_000
		}
		_ = h.RecordValues(d, 100)
		_ = h.RecordValues(500, 10)
		raw[i] = h
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		w := Window{From: time.Duration(i) * time.Minute, To: time.Duration(i+1) * time.Minute,
			Histograms: map[string][]byte{"transaction": enc},
			Summaries:  map[string]metrics.LatencySummary{"transaction": metrics.SummaryOf(h, 1)}}
		snaps = keepWindow(snaps, w)
		longest = max(longest, len(snaps))
	}
	if longest >= MaxWindows {
		t.Fatalf("held %d snapshots, want fewer than %d", longest, MaxWindows)
	}
	var count, clamped int64
	next := time.Duration(0)
	for _, s := range snaps {
		if s.From != next {
			t.Fatalf("a window starts at %v, the previous ended at %v", s.From, next)
		}
		next = s.To
		first, last := int(s.From/time.Minute), int(s.To/time.Minute)
		want := metrics.NewHistogram()
		for i := first; i < last; i++ {
			want.Merge(raw[i])
		}
		sum := s.Summaries["transaction"]
		if sum.Count != want.TotalCount() || sum.P99 != time.Duration(want.ValueAtPercentile(99))*time.Microsecond {
			t.Fatalf("window %v..%v: %d latencies, p99 %v; its raw latencies: %d, p99 %d µs",
				s.From, s.To, sum.Count, sum.P99, want.TotalCount(), want.ValueAtPercentile(99))
		}
		dec, err := hdrhistogram.Decode(s.Histograms["transaction"])
		if err != nil || dec.TotalCount() != sum.Count {
			t.Fatalf("window %v: encoded histogram does not match its summary (%v)", s.From, err)
		}
		count += sum.Count
		clamped += sum.Clamped
	}
	if next != windows*time.Minute {
		t.Errorf("the windows end at %v, the run at %v", next, windows*time.Minute)
	}
	if count != windows*110 || clamped != windows {
		t.Errorf("%d latencies and %d clamped kept, want %d and %d", count, clamped, windows*110, windows)
	}
}
