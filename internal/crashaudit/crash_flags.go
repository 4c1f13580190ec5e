package crashaudit

import (
	"time"

	"github.com/spf13/pflag"
)

// AddFlags declares the flags of 'pgoltp experiment' that fill o (the
// crash audit's, and --allow-unsafe, which plans share).
func (o *CrashOptions) AddFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.AllowUnsafe, "allow-unsafe", false, "permit settings that can lose or corrupt data on a crash (labelled in every output)")
	f.StringArrayVar(&o.Set, "set", nil, "with --crash: a setting to audit, name=value (repeatable)")
	f.DurationVar(&o.KillAfter, "kill-after", 5*time.Second, "with --crash: run this long before killing the server")
	f.IntVar(&o.Clients, "clients", 4, "with --crash: concurrent connections")
}
