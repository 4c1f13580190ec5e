package report

import (
	"strings"
	"testing"
)

// TestChartUnitsMatchCollectedUnits: the collectors store memory from
// /proc/meminfo in MiB (2^20 bytes) and throughput and sizes in MB (10^6
// bytes); a chart's unit says which, so a reader never compares the two as
// one unit.
func TestChartUnitsMatchCollectedUnits(t *testing.T) {
	for _, section := range collectorSections {
		for _, spec := range section.specs {
			for _, m := range spec.metrics {
				binary := strings.HasPrefix(m, "os.mem.")
				if binary && spec.unit != "MiB" {
					t.Errorf("chart %q draws %s (MiB) labelled %q", spec.title, m, spec.unit)
				}
				if !binary && strings.HasSuffix(m, "_mb") && spec.unit != "MB" {
					t.Errorf("chart %q draws %s (MB) labelled %q", spec.title, m, spec.unit)
				}
			}
		}
	}
}
