package settings

import (
	"fmt"
	"sort"
	"strings"
)

// Refused reports whether pgoltp refuses to apply a setting at all, whatever
// its value and whatever flags are given, and why. These settings open the
// server to the network, run programs or load code as the server user, or
// name files and directories the server reads or writes: a benchmark plan has
// no business with them, and one mistaken value can expose the server or
// leave the lab unable to start. --allow-unsafe (which is about durability)
// does not unlock them.
//
// The rules are by name pattern where PostgreSQL's own naming is regular
// (ssl_*, *_command, *_library, *_libraries, *_file), so that a setting a
// new major adds under such a name is refused before anyone reviews it; an
// extension's setting (a dotted name such as foo.bar_command) falls under
// the same patterns. TestRefusedCoversServerSettings checks the list against
// pg_settings of every major from 10 to 18, and names the string settings
// deliberately left allowed (search_path, primary_conninfo, ...) with the
// reason for each.
//
// This is the one place the rule lives. Every path that applies settings
// calls CheckApplicable or Validate* early, for a message in its own terms,
// and cluster.ApplySettings (the only code that runs ALTER SYSTEM SET)
// refuses them again whatever its caller checked.
func Refused(name string) (bool, string) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case n == "listen_addresses" || n == "port" || n == "ssl" || strings.HasPrefix(n, "ssl_"):
		return true, "it opens the server to the network or changes how clients reach it"
	case n == "bonjour" || n == "bonjour_name":
		// Advertises the server on the local network (Zeroconf).
		return true, "it announces the server on the network"
	case strings.HasPrefix(n, "unix_socket_"):
		return true, "it changes who can reach the server's socket"
	case strings.HasSuffix(n, "_command"):
		// archive_, restore_, archive_cleanup_, recovery_end_, ssl_passphrase_command.
		return true, "it runs a program as the server user"
	case strings.HasSuffix(n, "_library") || strings.HasSuffix(n, "_libraries") || n == "jit_provider":
		// archive_library, shared_/local_/session_preload_libraries,
		// oauth_validator_libraries (18), output_plugin_libraries; jit_provider
		// names the JIT library every backend loads.
		return true, "it loads code into the server"
	case n == "dynamic_library_path" || n == "extension_control_path" || n == "extension_destdir" || strings.HasPrefix(n, "plperl.on_"):
		// Where LOAD and CREATE EXTENSION find code (extension_control_path:
		// 18; extension_destdir: a Debian patch, in its packaged servers);
		// plperl.on_*init is Perl code run in every new interpreter.
		return true, "it decides which code the server loads or runs"
	case strings.HasSuffix(n, "file") || strings.HasSuffix(n, "_directory") || n == "log_filename":
		// *file: config_file, hba_file, ident_file, external_pid_file,
		// promote_trigger_file (12-15), krb_server_keyfile (a Kerberos
		// key). *_directory: data_, log_, stats_temp_directory (10-14).
		// The log and stats ones are files the server writes (and, with
		// log_truncate_on_rotation, empties) wherever they point, and
		// pgoltp reads the server's log from the lab.
		return true, "it names files or directories the server reads or writes, outside what the lab manages"
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
