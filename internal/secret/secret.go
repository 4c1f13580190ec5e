// Package secret is the one place that decides what pgoltp must never write
// (in a file, in the results store, on standard output or in a log): the
// values of settings that may hold a secret, and any value that holds a
// password. Every writer routes settings, parameters and JSON documents
// through Redact (JSON for whole documents). It knows nothing about
// PostgreSQL or pgoltp's types.
package secret

import (
	"regexp"
	"strings"
)

// Redacted replaces a secret value wherever pgoltp writes it.
const Redacted = "(redacted)"

// marks are name fragments of settings whose values may hold a secret: a
// password inside a connection string (primary_conninfo), a command line with
// a token in it (archive_command, ssl_passphrase_command), a key.
var marks = []string{"password", "passphrase", "conninfo", "secret", "_command", "_key"}

// Named reports whether the value of the setting (or parameter) name may hold
// a secret, so pgoltp must never store or print it.
func Named(name string) bool {
	n := strings.ToLower(name)
	for _, m := range marks {
		if strings.Contains(n, m) {
			return true
		}
	}
	return false
}

// password finds a password in a value whatever its name: password=... of a
// connection string, or the user:password@ of a URL (which libpq ends at the
// first '@' before a '/', spaces and all).
var password = regexp.MustCompile(`(?i)\bpassword\s*=|://[^/@]*:[^/@]*@`)

// holdsPassword says value holds a password, also where a URL spells it
// percent-encoded (?pass%77ord=x), as libpq and pgx decode it.
func holdsPassword(value string) bool {
	return password.MatchString(value) || strings.Contains(value, "%") && password.MatchString(percentDecoded(value))
}

// percentDecoded decodes every %XX of s, and leaves any other '%' as it is.
func percentDecoded(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// Redact returns value, or Redacted when name may hold a secret (Named) or
// the value holds a password. An empty value says, harmlessly, that nothing
// is set, and stays empty. It is the one redaction rule: everything pgoltp
// writes goes through it.
func Redact(name, value string) string {
	if value != "" && (Named(name) || strings.ContainsAny(value, "=@") && holdsPassword(value)) {
		return Redacted
	}
	return value
}
