package driver

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// OutageLinesMax is the most connection losses a summary lists one per line:
// a run of thousands of terminals on a hundred connections loses them all at
// once when the server restarts, and a hundred lines say less than one.
const OutageLinesMax = 10

// OutageLines describes a run's connection losses for people: one line each
// up to OutageLinesMax, otherwise one line of totals and gap quantiles, one
// with the most common error, and the longest few gaps, one line each.
func OutageLines(outages []Outage) []string {
	if len(outages) <= OutageLinesMax {
		lines := make([]string, len(outages))
		for i, o := range outages {
			lines[i] = outageLine(o)
		}
		return lines
	}
	conns := map[int]bool{}
	errors := map[string]int{}
	var gaps []time.Duration
	var restored []Outage
	for _, o := range outages {
		conns[o.Conn] = true
		errors[o.Error]++
		if !o.Restored.IsZero() {
			gaps = append(gaps, o.Duration())
			restored = append(restored, o)
		}
	}
	slices.Sort(gaps)
	first := slices.MinFunc(outages, func(a, b Outage) int { return a.Lost.Compare(b.Lost) })
	last := slices.MaxFunc(outages, func(a, b Outage) int { return a.Lost.Compare(b.Lost) })
	lines := []string{fmt.Sprintf("%d connection losses on %d connections between %s and %s, %d not restored by the end",
		len(outages), len(conns), first.Lost.Format("15:04:05.000"), last.Lost.Format("15:04:05.000"), len(outages)-len(restored))}
	if len(gaps) > 0 {
		lines[0] += fmt.Sprintf("; gaps min %s, median %s, p90 %s, max %s", gaps[0].Round(time.Millisecond),
			gaps[len(gaps)/2].Round(time.Millisecond), gaps[len(gaps)*9/10].Round(time.Millisecond), gaps[len(gaps)-1].Round(time.Millisecond))
	}
	common, n := "", 0
	for e, k := range errors {
		if k > n || (k == n && e < common) {
			common, n = e, k
		}
	}
	lines = append(lines, fmt.Sprintf("%d of them (%d distinct errors): %s", n, len(errors), common))
	slices.SortStableFunc(restored, func(a, b Outage) int { return cmp.Compare(b.Duration(), a.Duration()) })
	for _, o := range restored[:min(3, len(restored))] {
		lines = append(lines, "longest: "+outageLine(o))
	}
	return lines
}

// outageLine is one connection loss.
func outageLine(o Outage) string {
	gap := "not restored by the end"
	if !o.Restored.IsZero() {
		gap = "for " + o.Duration().Round(time.Millisecond).String()
	}
	return fmt.Sprintf("connection %d lost at %s %s (%d reconnect attempts): %s",
		o.Conn, o.Lost.Format("15:04:05.000"), gap, o.Attempts, o.Error)
}
