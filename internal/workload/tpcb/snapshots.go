package tpcb

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
)

// maxSnapshots bounds the histogram snapshots a run keeps (half an hour of
// the default one-minute windows). A run of days would otherwise keep one set
// of encoded histograms per window (about 6 KB with the per-statement ones)
// for its whole length, and the driver's memory would grow all along; at the
// bound, neighbouring windows are merged pairwise, so the windows of a long
// run double in length as it goes, like the series' points
// (metrics.MaxPoints). The bound is low so that memory stops growing within
// the first half hour, which is what a soak can check; a recorded run keeps
// each hour's exact histograms in the results store anyway. Merging
// histograms is exact: each merged window's percentiles are its own.
const maxSnapshots = 30

// keepSnapshot appends s, merging neighbours pairwise when the bound is
// reached.
func keepSnapshot(snaps []HistogramSnapshot, s HistogramSnapshot) []HistogramSnapshot {
	snaps = append(snaps, s)
	if len(snaps) < maxSnapshots {
		return snaps
	}
	out := snaps[:0] // in place: out never overtakes the window being read
	for i := 0; i < len(snaps); i += 2 {
		if i+1 == len(snaps) {
			out = append(out, snaps[i])
			break
		}
		m, err := mergeSnapshots(snaps[i], snaps[i+1])
		if err != nil {
			// Windows whose histograms cannot be decoded stay apart: one
			// more window kept beats a window lost.
			out = append(out, snaps[i], snaps[i+1])
			continue
		}
		out = append(out, m)
	}
	clear(snaps[len(out):])
	return out
}

// mergeSnapshots is the window from a's start to b's end: per kind, the
// merged histogram and its summary (clamped counts add up).
func mergeSnapshots(a, b HistogramSnapshot) (HistogramSnapshot, error) {
	m := HistogramSnapshot{From: a.From, To: b.To, Histograms: map[string][]byte{}, Summaries: map[string]metrics.LatencySummary{}}
	for _, name := range kindsOf(a, b) {
		h := metrics.NewHistogram()
		for _, w := range []HistogramSnapshot{a, b} {
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
func kindsOf(a, b HistogramSnapshot) []string {
	var names []string
	seen := map[string]bool{}
	for _, w := range []HistogramSnapshot{a, b} {
		for name := range w.Summaries {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	return names
}
