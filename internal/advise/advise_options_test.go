package advise

import (
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/host"
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
		{"format", AdviseOptions{Workload: "oltp", Format: "yaml"}, `format "yaml" is not an output format`},
		{"workload", AdviseOptions{Workload: "olap", Format: "conf"}, `workload "olap"`},
		{"storage", AdviseOptions{Workload: "oltp", Format: "conf", Storage: "tape"}, `storage "tape"`},
		{"major", AdviseOptions{Workload: "oltp", Format: "conf", Major: 9}, "major 9 is not a supported PostgreSQL major; use major 10 to 18"},
		{"cpus", AdviseOptions{Workload: "oltp", Format: "conf", CPUs: -1}, "cpus -1 is negative"},
		{"wal rate without unit", AdviseOptions{Workload: "oltp", Format: "conf", WALRate: "12"}, `wal-rate "12"`},
		{"ram without unit", AdviseOptions{Workload: "oltp", Format: "conf", RAM: "16"}, `ram "16"`},
	} {
		err := c.o.Validate(false)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %v names a flag: the command names it (issue 26 point 5)", c.name, err)
		}
	}
	o := AdviseOptions{Profiles: []Profile{{Name: "tpcc"}}, Workload: "tpcc", Format: "yaml", RAM: "16GB", CPUs: 3, Storage: "nvme", WALRate: "12MB"}
	if err := o.Validate(true); err != nil || o.Format != "json" {
		t.Fatalf("--json: format %q, error %v", o.Format, err)
	}
	in := o.Input()
	o.Override(&in.Host)
	if in.WALBytesPerSecond != 12<<20 || in.Host.RAM != 16<<30 || in.Host.CPUs != 3 || in.Host.Storage != "nvme" || len(in.Host.Notes) != 3 {
		t.Errorf("input %+v", in)
	}
}

// TestProfilesComeFromTheCommand: the advisor knows no workload by name; the
// profiles the command gives (the registry's) decide what Workload takes and
// whether its tables' hot rows get vacuumed more often.
func TestProfilesComeFromTheCommand(t *testing.T) {
	o := AdviseOptions{Profiles: []Profile{{Name: "hot", HotRows: true}, {Name: "cool"}}, Workload: "tpcc", Format: "conf"}
	if err := o.Validate(false); err == nil || !strings.Contains(err.Error(), "use workload hot, cool or oltp") {
		t.Errorf("a workload without a profile: %v", err)
	}
	for _, c := range []struct{ workload, naptime string }{{"hot", "10s"}, {"cool", "30s"}, {"oltp", "30s"}} {
		o.Workload = c.workload
		if err := o.Validate(false); err != nil {
			t.Fatalf("%s: %v", c.workload, err)
		}
		in := o.Input()
		in.Host = host.Host{RAM: 8 << 30, CPUs: 4, Storage: host.StorageSSD}
		a, err := Advise(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Settings()["autovacuum_naptime"]; got != c.naptime || a.Workload != c.workload {
			t.Errorf("%s: autovacuum_naptime %s, workload %q; want %s", c.workload, got, a.Workload, c.naptime)
		}
	}
}
