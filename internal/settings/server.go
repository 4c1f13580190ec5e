package settings

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Querier is what reading pg_settings needs: a *pgx.Conn, a *pgxpool.Pool or a pgx.Tx.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Live is one row of a running server's pg_settings.
type Live struct {
	Range
	Name           string
	Setting        string // current value, in Unit
	BootVal        string // compiled-in default
	Source         string // where the value came from: default, configuration file, ...
	SourceFile     string // the file that set it, when Source is a file (superusers only)
	Context        Context
	PendingRestart bool // changed in the configuration but waiting for a restart
}

// Value returns the current value as a person writes it: "1GB" rather than
// "131072" for shared_buffers.
func (l Live) Value() string {
	n, err := strconv.ParseFloat(l.Setting, 64)
	if err != nil || l.Kind != Integer {
		return l.Setting
	}
	return l.Format(n)
}

// ServerSQL is ReadServer's statement: its argument is the names (an empty
// array: every setting). collect's version matrix runs it on every major.
const ServerSQL = `SELECT name, setting, coalesce(unit,''), vartype, coalesce(min_val,''), coalesce(max_val,''),
	        coalesce(enumvals, '{}'::text[]), context, coalesce(boot_val,''), coalesce(source,''), coalesce(sourcefile,''), pending_restart,
	        current_setting('server_version_num')::int
	   FROM pg_settings WHERE cardinality($1::text[]) = 0 OR name = ANY($1::text[])`

// ReadServer reads pg_settings for the given names (all settings when none are
// given) and the server's major version.
func ReadServer(ctx context.Context, q Querier, names ...string) (map[string]Live, int, error) {
	if names == nil {
		names = []string{}
	}
	rows, err := q.Query(ctx, ServerSQL, names)
	if err != nil {
		return nil, 0, fmt.Errorf("reading pg_settings: %w", err)
	}
	defer rows.Close()
	out := map[string]Live{}
	major := 0
	for rows.Next() {
		var l Live
		var kind, min, max, ctxName string
		var num int
		if err := rows.Scan(&l.Name, &l.Setting, &l.Unit, &kind, &min, &max, &l.Enum, &ctxName, &l.BootVal, &l.Source, &l.SourceFile, &l.PendingRestart, &num); err != nil {
			return nil, 0, fmt.Errorf("reading pg_settings: %w", err)
		}
		l.Kind, l.Context = Kind(kind), Context(ctxName)
		l.Min, _ = strconv.ParseFloat(min, 64)
		l.Max, _ = strconv.ParseFloat(max, 64)
		out[l.Name] = l
		major = num / 10000
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("reading pg_settings: %w", err)
	}
	if err := readOwn(ctx, q, names, out); err != nil {
		return nil, 0, err
	}
	return out, major, nil
}

// FromAutoConf reports whether the value was set with ALTER SYSTEM
// (postgresql.auto.conf): restoring it means setting it again, whereas a value
// from postgresql.conf or the default is restored by ALTER SYSTEM RESET.
func (l Live) FromAutoConf() bool {
	return strings.HasSuffix(l.SourceFile, "postgresql.auto.conf")
}

// ValidateLive checks value for name against a live server's pg_settings row
// when there is one, and against the catalog otherwise. Refused settings
// (Refused) are errors whatever the value.
func ValidateLive(live map[string]Live, major int, name, value string) error {
	name = strings.ToLower(strings.TrimSpace(name))
	if err := checkApplicable(name); err != nil {
		return err
	}
	l, ok := live[name]
	if !ok {
		if live != nil && !Own(name) {
			return fmt.Errorf("the server (PostgreSQL %d) has no setting %s", major, name)
		}
		return Validate(major, name, value)
	}
	if l.Context == Internal {
		return fmt.Errorf("setting %s is read-only", name)
	}
	if err := l.Check(value); err != nil {
		return fmt.Errorf("%s = %s: %v", name, value, err)
	}
	return nil
}

// Same reports whether the server's current value equals value as a person
// wrote it: "1GB" equals shared_buffers 131072 (8kB), "on" equals "true".
func (l Live) Same(value string) bool {
	v := strings.Trim(strings.TrimSpace(value), "'")
	switch l.Kind {
	case Bool:
		a, err1 := ParseBool(v)
		b, err2 := ParseBool(l.Setting)
		return err1 == nil && err2 == nil && a == b
	case Integer, Real:
		want, err := ToUnit(v, l.Unit)
		if err != nil {
			return false
		}
		have, err := strconv.ParseFloat(l.Setting, 64)
		if err != nil {
			return false
		}
		if l.Kind == Integer {
			want = math.Round(want)
		}
		return math.Abs(want-have) <= 1e-9*math.Max(1, math.Abs(have))
	case Enum:
		if strings.EqualFold(v, l.Setting) {
			return true
		}
		// Boolean spellings of enums: synchronous_commit=true is "on".
		if b, err := ParseBool(v); err == nil {
			if b {
				return strings.EqualFold(l.Setting, "on")
			}
			return strings.EqualFold(l.Setting, "off")
		}
		return false
	}
	return v == l.Setting
}

// PendingRestart returns which of the named settings (all when none are
// named) changed in the configuration but take effect only after a restart.
// After pg_reload_conf the answer is reliable once the asking backend has
// processed the reload too.
func PendingRestart(ctx context.Context, q Querier, names ...string) ([]string, error) {
	live, _, err := ReadServer(ctx, q, names...)
	if err != nil {
		return nil, err
	}
	var pending []string
	for name, l := range live {
		if l.PendingRestart {
			pending = append(pending, name)
		}
	}
	sort.Strings(pending)
	return pending, nil
}
