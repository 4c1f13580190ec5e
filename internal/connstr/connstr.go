// Package connstr adds a parameter to a connection string (--dsn) in the
// string's own form, as pgx and libpq read it: a query parameter of a URL, or
// a key='value' pair. It never rewrites the rest of the string: net/url does
// not read URLs as libpq does (several hosts, '+' is not a space, a '?' may
// sit in a password), and a password must reach the server as given.
package connstr

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// With returns dsn with the parameter key set to value, overriding any value
// dsn gives it. key is connect_timeout or a run-time parameter (search_path):
// the keys whose effect With checks by parsing the result. The error names
// key only (never the DSN, which may hold a password).
func With(dsn, key, value string) (string, error) {
	before, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "", fmt.Errorf("cannot set %s: the connection string does not parse", key)
	}
	var candidates []string
	if isURL(dsn) {
		candidates = []string{appendQuery(dsn, key, value)}
	} else {
		pair := key + "='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(value) + "'"
		// Appended, the pair overrides the DSN's own; but a DSN ending in
		// "key=" would read the pair as that key's value, so that value is
		// closed first ('' is the empty value it had); prepended (which the
		// DSN's own value overrides) is the last resort.
		tail := dropDanglingBackslash(dsn)
		candidates = []string{tail + " " + pair, tail + "'' " + pair, pair + " " + dsn}
	}
	for _, c := range candidates {
		after, err := pgconn.ParseConfig(c)
		if err == nil && sameServer(before, after, key) && holds(after, key, value) {
			return c, nil
		}
	}
	return "", fmt.Errorf("cannot set %s in this connection string: set it in the string yourself", key)
}

func isURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// appendQuery adds key=value to a URL's query. The query starts at the first
// '?' after the user and password (which libpq ends at the first '@' before
// any '/'); later parameters override earlier ones.
func appendQuery(dsn, key, value string) string {
	rest := dsn[strings.Index(dsn, "://")+3:]
	if i := strings.IndexAny(rest, "@/"); i >= 0 && rest[i] == '@' {
		rest = rest[i+1:]
	}
	sep := "?"
	if strings.Contains(rest, "?") {
		sep = "&"
		if strings.HasSuffix(dsn, "?") || strings.HasSuffix(dsn, "&") {
			sep = ""
		}
	}
	return dsn + sep + key + "=" + escape(value)
}

// escape percent-encodes every byte but the unreserved ones: libpq decodes
// %XX and nothing else ('+' stays '+').
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// dropDanglingBackslash removes a backslash that ends dsn unescaped: libpq
// drops it, but followed by more text it would escape the space before it.
func dropDanglingBackslash(dsn string) string {
	n := len(dsn) - len(strings.TrimRight(dsn, `\`))
	if n%2 == 1 {
		return dsn[:len(dsn)-1]
	}
	return dsn
}

// sameServer says after reaches the server before does, as the same user,
// with the same other run-time parameters.
func sameServer(before, after *pgconn.Config, key string) bool {
	if after.Host != before.Host || after.Port != before.Port || after.Database != before.Database ||
		after.User != before.User || after.Password != before.Password ||
		key != "connect_timeout" && after.ConnectTimeout != before.ConnectTimeout {
		return false
	}
	for k, v := range before.RuntimeParams {
		if k != key && after.RuntimeParams[k] != v {
			return false
		}
	}
	return len(after.RuntimeParams) <= len(before.RuntimeParams)+1
}

// holds says cfg has key set to value.
func holds(cfg *pgconn.Config, key, value string) bool {
	if key == "connect_timeout" {
		s, err := strconv.Atoi(value)
		return err == nil && cfg.ConnectTimeout == time.Duration(s)*time.Second
	}
	return cfg.RuntimeParams[key] == value
}
