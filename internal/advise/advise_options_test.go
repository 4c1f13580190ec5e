package advise

import (
	"strings"
	"testing"
)

// TestAdviseOptionsValidate: each bad option is a field error naming its
// field and what it accepts, never a flag.
func TestAdviseOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		o    AdviseOptions
		want string // in the error; "" for none
	}{
		{"defaults", AdviseOptions{Workload: "oltp", Format: "conf"}, ""},
		{"format", AdviseOptions{Workload: "oltp", Format: "yaml"}, `Format "yaml" is not an output format`},
		{"workload", AdviseOptions{Workload: "olap", Format: "conf"}, `Workload "olap"`},
		{"storage", AdviseOptions{Workload: "oltp", Format: "conf", Storage: "tape"}, `Storage "tape"`},
		{"major", AdviseOptions{Workload: "oltp", Format: "conf", Major: 9}, "Major 9 is not a supported PostgreSQL major; use Major 10 to 18"},
		{"cpus", AdviseOptions{Workload: "oltp", Format: "conf", CPUs: -1}, "CPUs -1 is negative"},
		{"wal rate without unit", AdviseOptions{Workload: "oltp", Format: "conf", WALRate: "12"}, `WALRate "12"`},
		{"ram without unit", AdviseOptions{Workload: "oltp", Format: "conf", RAM: "16"}, `RAM "16"`},
	} {
		err := c.o.Validate(false)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %v names a flag: the command names it (issue 26 point 5)", c.name, err)
		}
	}
	o := AdviseOptions{Workload: "tpcc", Format: "yaml", RAM: "16GB", CPUs: 3, Storage: "nvme", WALRate: "12MB"}
	if err := o.Validate(true); err != nil || o.Format != "json" {
		t.Fatalf("--json: format %q, error %v", o.Format, err)
	}
	in := o.Input()
	o.Override(&in.Host)
	if in.WALBytesPerSecond != 12<<20 || in.Host.RAM != 16<<30 || in.Host.CPUs != 3 || in.Host.Storage != "nvme" || len(in.Host.Notes) != 3 {
		t.Errorf("input %+v", in)
	}
}
