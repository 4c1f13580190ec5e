package experiment_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/experiment"
)

// A plan with failover: is a series of failover audits, one per level and
// kill; an empty list is every value; bad keys and values are one line
// naming them (issue 31).
func TestPlanFailover(t *testing.T) {
	p, err := experiment.ParsePlan(strings.NewReader("workload: {clients: 2}\nduration: 3s\nfailover: {sync: [on, off], kill: [network]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Failover.Sync, []string{"on", "off"}) || !slices.Equal(p.Failover.Kill, []string{"network"}) || p.Workload.Clients != 2 {
		t.Errorf("failover %+v, clients %d", p.Failover, p.Workload.Clients)
	}
	p, err = experiment.ParsePlan(strings.NewReader("duration: 3s\nfailover: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Failover.Sync, experiment.FailoverSyncs) || !slices.Equal(p.Failover.Kill, experiment.FailoverKills) {
		t.Errorf("an empty failover block: %+v, want every level and kill", p.Failover)
	}
	bad := map[string][]string{
		"duration: 3s\nfailover: {sync: [on], kil: [network]}\n":                        {"kil"},
		"duration: 3s\nfailover: {sync: [maybe]}\n":                                     {"sync \"maybe\"", "remote_apply"},
		"duration: 3s\nfailover: {kill: [power]}\n":                                     {"kill \"power\"", "network"},
		"duration: 3s\nfailover: {sync: [off, off]}\n":                                  {"sync off is listed twice"},
		"workload: {kind: tpcb}\nduration: 3s\nfailover: {}\n":                          {"ledger", "tpcb"},
		"duration: 3s\nfailover: {}\nsteps:\n  - settings: {work_mem: 8MB}\n":           {"leave out steps"},
		"duration: 3s\nfailover: {sync: on}\n":                                          {"not a valid plan"},
		"failover: {sync: [on]}\n":                                                      {"duration is missing"},
		"duration: 3s\nfailover: {sync: [on]}\nbaseline: {settings: {work_mem: 8MB}}\n": {"leave out"},
	}
	for plan, want := range bad {
		_, err := experiment.ParsePlan(strings.NewReader(plan))
		if err == nil {
			t.Errorf("%q: accepted", plan)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: %q, want one line saying %q", plan, err, w)
			}
		}
	}
}
