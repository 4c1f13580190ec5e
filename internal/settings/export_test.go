package settings

import "sort"

// Names (for the tests) returns the names of every setting in the catalog that exists on major
// (0: on any version), sorted.
func Names(major int) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range catalog {
		if s.appliesTo(major) && !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}
