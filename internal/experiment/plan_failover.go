package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// FailoverPlan is a plan's failover: block (issue 31): the failover audit
// (experiment --failover) for every combination of a replication level and
// a way to take the primary away, each on a fresh cluster (a primary and one
// standby) that the command makes and destroys. An empty list means all of
// them.
//
//	workload: {clients: 4}
//	duration: 5s   # each audit runs this long before the kill, and as long on the new primary
//	failover: {sync: [on, remote_write, remote_apply, off], kill: [primary, network]}
type FailoverPlan struct {
	Sync []string `yaml:"sync"`
	Kill []string `yaml:"kill"`
}

// FailoverSyncs and FailoverKills are the values of sync: and kill:
// (experiment --failover's --sync and --kill).
var (
	FailoverSyncs = []string{"on", "remote_write", "remote_apply", "off"}
	FailoverKills = []string{"primary", "network"}
)

// checkFailover validates a failover plan: the ledger (the audit's
// workload), known and distinct levels and kills, nothing of an A/B plan.
func (p *Plan) checkFailover() error {
	f := p.Failover
	if p.Workload.Kind != (ledger.Ledger{}).Kind() {
		return fmt.Errorf("failover: runs the %s workload, not %s; drop workload.kind", ledger.Ledger{}.Kind(), p.Workload.Kind)
	}
	if len(p.Steps) > 0 || len(p.Versions) > 0 || len(p.Baseline.Settings) > 0 || len(p.Baseline.Layout) > 0 || len(p.Baseline.OS) > 0 {
		return errors.New("failover: the levels and kills are the steps; leave out steps, versions and baseline")
	}
	if len(f.Sync) == 0 {
		f.Sync = slices.Clone(FailoverSyncs)
	}
	if len(f.Kill) == 0 {
		f.Kill = slices.Clone(FailoverKills)
	}
	if err := checkList("sync", f.Sync, FailoverSyncs); err != nil {
		return err
	}
	return checkList("kill", f.Kill, FailoverKills)
}

func checkList(key string, values, allowed []string) error {
	for i, v := range values {
		if !slices.Contains(allowed, v) {
			return fmt.Errorf("failover: %s %q: use %s", key, v, strings.Join(allowed, ", "))
		}
		if slices.Contains(values[:i], v) {
			return fmt.Errorf("failover: %s %s is listed twice", key, v)
		}
	}
	return nil
}
