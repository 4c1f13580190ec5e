package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/crashaudit"
)

// addCrashFlags declares the flags of 'pgoltp experiment' that fill o (the
// crash audit's, and --allow-unsafe, which plans share).
func addCrashFlags(f *pflag.FlagSet, o *crashaudit.CrashOptions) {
	f.BoolVar(&o.AllowUnsafe, "allow-unsafe", false, "permit settings that can lose or corrupt data on a crash (labelled in every output)")
	f.StringArrayVar(&o.Set, "set", nil, "with --crash: a setting to audit, name=value (repeatable)")
	f.DurationVar(&o.KillAfter, "kill-after", 5*time.Second, "with --crash: run this long before killing the server")
	f.IntVar(&o.Clients, "clients", 4, "with --crash: concurrent connections")
}

// crashFlags names the flag of each field of crashaudit.CrashOptions (and
// of the audit it makes: Settings), for their field errors.
var crashFlags = map[string]string{
	"Set": "--set", "Settings": "--set", "KillAfter": "--kill-after", "Clients": "--clients", "AllowUnsafe": "--allow-unsafe",
}
