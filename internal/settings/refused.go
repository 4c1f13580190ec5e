package settings

import (
	"fmt"
	"sort"
	"strings"
)

// Refused reports whether pgoltp refuses to apply a setting at all, whatever
// its value and whatever flags are given, and why. These settings open the
// server to the network, run programs or load code as the server user, or
// move the files the lab relies on: a benchmark plan has no business with
// them, and one mistaken value can expose the server or leave the lab unable
// to start. --allow-unsafe (which is about durability) does not unlock them.
// This is the one place the rule lives; every path that applies settings
// (experiment plans, --set, tune) calls CheckApplicable or Validate*.
func Refused(name string) (bool, string) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case n == "listen_addresses" || n == "port" || n == "ssl" || strings.HasPrefix(n, "ssl_"):
		return true, "it opens the server to the network or changes how clients reach it"
	case strings.HasPrefix(n, "unix_socket_"):
		return true, "it changes who can reach the server's socket"
	case strings.HasSuffix(n, "_command") || n == "archive_library":
		return true, "it runs a program or library as the server user"
	case strings.HasSuffix(n, "_preload_libraries") || n == "dynamic_library_path":
		return true, "it loads code into the server"
	case n == "data_directory" || n == "hba_file" || n == "ident_file" || n == "config_file" || n == "external_pid_file":
		return true, "it moves files the lab relies on (data, access rules, configuration)"
	}
	return false, ""
}

// CheckApplicable returns a one-line error naming the first refused setting
// of values (in name order), or nil when pgoltp may apply them all.
func CheckApplicable(values map[string]string) error {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := checkApplicable(n); err != nil {
			return err
		}
	}
	return nil
}

func checkApplicable(name string) error {
	if refused, why := Refused(name); refused {
		return fmt.Errorf("pgoltp never sets %s: %s (set it yourself in postgresql.conf if you really mean it; --allow-unsafe does not unlock it)", strings.ToLower(strings.TrimSpace(name)), why)
	}
	return nil
}
