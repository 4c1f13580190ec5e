package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
)

// TestAdviseHelpNamesTheProfiles: the help of advise --workload, written out
// so that it reads as it always did, names exactly the registry's workloads
// with an advice profile and the generic one.
func TestAdviseHelpNamesTheProfiles(t *testing.T) {
	f := pflag.NewFlagSet("advise", pflag.ContinueOnError)
	o := advise.AdviseOptions{Profiles: adviseProfiles()}
	addAdviseFlags(f, &o)
	usage := f.Lookup("workload").Usage
	got := strings.FieldsFunc(usage, func(r rune) bool { return r == ',' || r == ' ' })
	got = slices.DeleteFunc(got, func(s string) bool { return s == "or" })
	want := append(registry.KindsFor(registry.Advise), advise.WorkloadOLTP)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("advise --workload help %q names %v, want %v", usage, got, want)
	}
	for _, p := range o.Profiles {
		if e, _ := registry.Lookup(p.Name); e.HotRows != p.HotRows {
			t.Errorf("profile %s: HotRows %v, registry %v", p.Name, p.HotRows, e.HotRows)
		}
	}
}
