package recorder

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/collect"
)

// Flags are a run command's --record and --bloat-every.
type Flags struct {
	Record     bool
	BloatEvery time.Duration
}

// AddFlags declares --record (with the command's own help) and --bloat-every.
func (r *Flags) AddFlags(f *pflag.FlagSet, recordHelp string) {
	f.BoolVar(&r.Record, "record", true, recordHelp)
	f.DurationVar(&r.BloatEvery, "bloat-every", 0, "estimate bloat with pgstattuple_approx this often during a recorded run (default 15m for runs planned to last 1h or more, else never; 0 = never)")
}

// Apply sets whether o records and how often its collectors estimate bloat,
// for a run planned to last planned (0: unknown); f are the parsed flags.
func (r Flags) Apply(o *Options, f *pflag.FlagSet, planned time.Duration) error {
	o.NoRecord = !r.Record
	var err error
	o.Collect.BloatEvery, err = collect.ResolveBloatEvery(f.Changed("bloat-every"), r.BloatEvery, planned)
	return err
}
