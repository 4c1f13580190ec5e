package measure

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// Window is the latency histograms of one window of a run, per kind, in
// HdrHistogram's compressed V2 encoding (µs), with their digests.
type Window struct {
	From       time.Duration                     `json:"from_ns"` // since the run started
	To         time.Duration                     `json:"to_ns"`
	Histograms map[string][]byte                 `json:"histograms"`
	Summaries  map[string]metrics.LatencySummary `json:"summaries"`
}

// MaxWindows bounds the histogram windows a run keeps (half an hour of
// one-minute windows). A run of days would otherwise keep one set of
// encoded histograms per window (about 6 KB with tpcb's per-statement ones)
// for its whole length, and the driver's memory would grow all along; at the
// bound, neighbouring windows are merged pairwise, so the windows of a long
// run double in length as it goes, like the series' points
// (metrics.MaxPoints). The bound is low so that memory stops growing within
// the first half hour, which is what a soak can check; a recorded run keeps
// each hour's exact histograms in the results store anyway. Merging
// histograms is exact: each merged window's percentiles are its own.
const MaxWindows = 30

// windowOf encodes s as the window of a run that started at start.
func windowOf(s *metrics.Snapshot, start time.Time) Window {
	w := Window{From: s.Start.Sub(start), To: s.End.Sub(start),
		Histograms: Encode(s), Summaries: map[string]metrics.LatencySummary{}}
	for k, name := range s.Kinds {
		w.Summaries[name] = s.Summary(k)
	}
	return w
}

// Encode encodes every non-empty histogram of s, by kind name.
func Encode(s *metrics.Snapshot) map[string][]byte {
	m := map[string][]byte{}
	for k, name := range s.Kinds {
		if s.Hists[k].TotalCount() == 0 {
			continue
		}
		if b, err := s.Hists[k].Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			m[name] = b
		}
	}
	return m
}

// keepWindow appends w, merging neighbours pairwise when the bound is
// reached.
func keepWindow(ws []Window, w Window) []Window {
	ws = append(ws, w)
	if len(ws) < MaxWindows {
		return ws
	}
	out := ws[:0] // in place: out never overtakes the window being read
	for i := 0; i < len(ws); i += 2 {
		if i+1 == len(ws) {
			out = append(out, ws[i])
			break
		}
		m, err := mergeWindows(ws[i], ws[i+1])
		if err != nil {
			// Windows whose histograms cannot be decoded stay apart: one
			// more window kept beats a window lost.
			out = append(out, ws[i], ws[i+1])
			continue
		}
		out = append(out, m)
	}
	clear(ws[len(out):])
	return out
}

// mergeWindows is the window from a's start to b's end: per kind, the
// merged histogram and its summary (clamped counts add up).
func mergeWindows(a, b Window) (Window, error) {
	m := Window{From: a.From, To: b.To, Histograms: map[string][]byte{}, Summaries: map[string]metrics.LatencySummary{}}
	for _, name := range kindsOf(a, b) {
		h := metrics.NewHistogram()
		for _, w := range []Window{a, b} {
			enc, ok := w.Histograms[name]
			if !ok {
				continue
			}
			d, err := hdrhistogram.Decode(enc)
			if err != nil {
				return m, fmt.Errorf("decoding the %s histogram: %w", name, err)
			}
			h.Merge(d)
		}
		if h.TotalCount() > 0 {
			enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				return m, fmt.Errorf("encoding the %s histogram: %w", name, err)
			}
			m.Histograms[name] = enc
		}
		m.Summaries[name] = metrics.SummaryOf(h, a.Summaries[name].Clamped+b.Summaries[name].Clamped)
	}
	return m, nil
}

// kindsOf lists the kinds either window has.
func kindsOf(a, b Window) []string {
	var names []string
	seen := map[string]bool{}
	for _, w := range []Window{a, b} {
		for name := range w.Summaries {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	return names
}
