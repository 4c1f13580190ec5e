package advise

import (
	"strings"
	"testing"
)

func TestAdviseOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		o    AdviseOptions
		want string // in the error; "" for none
	}{
		{"defaults", AdviseOptions{Workload: "oltp", Format: "conf"}, ""},
		{"format", AdviseOptions{Workload: "oltp", Format: "yaml"}, `format "yaml"`},
		{"workload", AdviseOptions{Workload: "olap", Format: "conf"}, `workload "olap"`},
		{"storage", AdviseOptions{Workload: "oltp", Format: "conf", Storage: "tape"}, `storage "tape"`},
		{"major", AdviseOptions{Workload: "oltp", Format: "conf", Major: 9}, "PostgreSQL 9"},
		{"cpus", AdviseOptions{Workload: "oltp", Format: "conf", CPUs: -1}, "negative"},
		{"wal rate without unit", AdviseOptions{Workload: "oltp", Format: "conf", WALRate: "12"}, "--wal-rate"},
		{"ram without unit", AdviseOptions{Workload: "oltp", Format: "conf", RAM: "16"}, "--ram"},
	} {
		err := c.o.Validate(false)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
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
