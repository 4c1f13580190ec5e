package settings

import "strings"

// Redacted replaces the value of a secret setting in every output and in the
// results store.
const Redacted = "(redacted)"

// secretMarks are name fragments of settings whose values may hold a secret:
// a password inside a connection string (primary_conninfo), a command line
// with a token in it (archive_command, ssl_passphrase_command), a key.
var secretMarks = []string{"password", "passphrase", "conninfo", "secret", "_command", "_key"}

// Secret reports whether name's value may hold a secret, so pgoltp must never
// store or print it.
func Secret(name string) bool {
	n := strings.ToLower(name)
	for _, m := range secretMarks {
		if strings.Contains(n, m) {
			return true
		}
	}
	return false
}

// Redact returns value, or Redacted when name is a secret setting and value
// is not empty (an empty value says, harmlessly, that nothing is set).
func Redact(name, value string) string {
	if value != "" && Secret(name) {
		return Redacted
	}
	return value
}
