package experiment

import (
	"fmt"

	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// checkInjected checks a plan's known effects (settings.InjectRows): only
// the ledger workload reads the setting, and it decides when it connects
// whether to send the extra statement, so the baseline must set the setting
// too (to 0): then both arms send the same statements, only the work
// differs, and a switchback run that starts on the baseline still sees
// the step's value.
func (p *Plan) checkInjected() error {
	base := p.Baseline.Values()
	for _, s := range p.Steps {
		for name := range s.Values() {
			if !settings.Own(name) {
				continue
			}
			if p.Workload.Kind != (ledger.Ledger{}).Kind() {
				return fmt.Errorf("step %q sets %s, which only the ledger workload reads: use workload kind ledger", s.Name, name)
			}
			if _, ok := base[name]; !ok {
				return fmt.Errorf("step %q sets %s: set it in the baseline too (e.g. %s: 0), so that both arms run the same statements", s.Name, name, name)
			}
		}
	}
	return nil
}
