package tune

import (
	"errors"
	"github.com/pgoltp/pgoltp/internal/field"
	"strings"
	"testing"
	"time"
)

// TestOptionsValidate: each bad option is a field error naming its field and
// what it accepts, never a flag (the command names the flag, issue 26 point 5).
func TestOptionsValidate(t *testing.T) {
	kinds := []Kind{{Name: "tpcb", Title: "TPC-B", Scale: 1, Objective: ObjectiveTPS}, {Name: "tpcc", Title: "TPC-C", Scale: 1, Objective: ObjectiveTPMC}}
	good := Options{Kinds: kinds, Workload: "tpcb", Budget: 25, Trial: time.Minute, Confirm: 3}
	for _, c := range []struct {
		name   string
		change func(*Options)
		field  string // "" for no error
		want   string
	}{
		{"good", func(*Options) {}, "", ""},
		{"workload", func(o *Options) { o.Workload = "ledger" }, "Workload", `"ledger" is not a workload the search can drive; use workload tpcb or tpcc`},
		{"scale", func(o *Options) { o.Scale = -1 }, "Scale", "-1 is too small"},
		{"clients", func(o *Options) { o.Clients = -1 }, "Clients", "-1 is too few"},
		{"budget", func(o *Options) { o.Budget = 0 }, "Budget", "0 is too few trials"},
		{"trial", func(o *Options) { o.Trial = time.Millisecond }, "Trial", "1ms is too short to measure"},
		{"objective", func(o *Options) { o.Objective = "fast" }, "Objective", `"fast" is not an objective`},
		{"tpmc of tpcb", func(o *Options) { o.Objective = ObjectiveTPMC }, "Objective", "is a TPC-C figure; use objective tps with tpcb"},
		{"format", func(o *Options) { o.Format = "yaml" }, "Format", `"yaml" is not an output format`},
		{"confirm", func(o *Options) { o.Confirm = 0 }, "Confirm", "0 is too few"},
		{"ablation", func(o *Options) { o.Ablation = -1 }, "Ablation", "-1 is negative"},
		{"min effect", func(o *Options) { o.MinEffect = 120 }, "MinEffect", "120 is not a percentage of effect"},
		{"max pairs", func(o *Options) { o.MaxPairs = 1 }, "MaxPairs", "1 is too few pairs"},
		{"inject", func(o *Options) { o.Inject = []string{"x"} }, "Inject", `"x" is not TRIAL:name=value`},
		{"inject refused", func(o *Options) { o.Inject = []string{"1:ssl=on"} }, "Inject", "ssl"},
	} {
		o := good
		c.change(&o)
		err := o.Validate()
		var f *field.Error
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field == "":
		case !errors.As(err, &f) || f.Field != c.field || !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: error %v, want field %s saying %q", c.name, err, c.field, c.want)
		// settings' own refusal text names --allow-unsafe; the field's words must not name a flag.
		case strings.Contains(strings.ReplaceAll(err.Error(), "--allow-unsafe does not unlock it", ""), "--"):
			t.Errorf("%s: %v names a flag", c.name, err)
		}
	}
}
