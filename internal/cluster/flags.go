package cluster

import (
	"fmt"

	"github.com/spf13/pflag"
)

// MajorFlagHelp describes --pg and its default rule (see DefaultBinaries).
var MajorFlagHelp = fmt.Sprintf("PostgreSQL major version (10-18; default: the machine's own PostgreSQL, else %d, whatever is in the download cache)", DefaultMajor)

// AddFlags declares the flags of 'pgoltp cluster up' that fill o.
func (o *Options) AddFlags(f *pflag.FlagSet) {
	f.IntVar(&o.Major, "pg", 0, MajorFlagHelp)
	f.StringVar(&o.RunAs, "run-as", "", "OS user that runs the server when pgoltp runs as root (default postgres)")
	f.BoolVar(&o.Offline, "offline", false, "never download PostgreSQL; fail if it is not installed")
	f.StringVar(&o.PgBin, "pg-bin", "", "run the cluster on this PostgreSQL installation's bin directory (initdb, pg_ctl, postgres)")
}
