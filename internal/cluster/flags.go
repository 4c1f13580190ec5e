package cluster

import "github.com/spf13/pflag"

// AddFlags declares the flags of 'pgoltp cluster up' that fill o.
func (o *Options) AddFlags(f *pflag.FlagSet) {
	f.IntVar(&o.Major, "pg", 0, "PostgreSQL major version (10-18; default: the newest installed, else download 18)")
	f.StringVar(&o.RunAs, "run-as", "", "OS user that runs the server when pgoltp runs as root (default postgres)")
	f.BoolVar(&o.Offline, "offline", false, "never download PostgreSQL; fail if it is not installed")
}
