package report

import (
	"fmt"
	"sort"
	"strings"
)

// manyEvents is where the events table folds away behind its summary: a
// 500-warehouse run with the default max_wal_size checkpoints every few
// seconds, and 200 rows of "requested checkpoint" say less than one line.
const manyEvents = 20

// eventSummary counts the events by kind, and checkpoints by what started
// them: requested ones (WAL reached max_wal_size) are the tuning signal.
func eventSummary(ms []marker, seconds float64) string {
	counts := map[string]int{}
	starts := map[string]int{}
	for _, m := range ms {
		counts[m.Kind]++
		if m.Kind == "checkpoint" {
			first, _, _ := strings.Cut(m.Detail, " ")
			starts[first]++ // requested, timed, or unattributed (its count never rose)
		}
	}
	kinds := sortedByCount(counts)
	var parts []string
	for _, k := range kinds {
		p := fmt.Sprintf("%d %s", counts[k], k)
		if k == "checkpoint" && len(starts) > 0 {
			var by []string
			for _, s := range sortedByCount(starts) {
				by = append(by, fmt.Sprintf("%d %s", starts[s], s))
			}
			p += " (" + strings.Join(by, ", ")
			if seconds > 0 && counts[k] > 1 {
				p += fmt.Sprintf("; one every %.0f s", seconds/float64(counts[k]))
			}
			p += ")"
		}
		parts = append(parts, p)
	}
	noun := "events"
	if len(ms) == 1 {
		noun = "event"
	}
	return fmt.Sprintf("%d %s: %s", len(ms), noun, strings.Join(parts, ", "))
}

// sortedByCount is m's keys, the largest count first (ties by name).
func sortedByCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	return keys
}
