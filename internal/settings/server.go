package settings

import (
	"context"
	"fmt"
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
	Context        Context
	PendingRestart bool // changed in the configuration but waiting for a restart
}

// Value returns the current value as a person writes it: "1GB" rather than
// "131072" for shared_buffers.
func (l Live) Value() string {
	family, scale, err := unitScale(l.Unit)
	if err != nil || family == "" || l.Kind != Integer {
		return l.Setting
	}
	n, err := strconv.ParseFloat(l.Setting, 64)
	if err != nil || n < 0 {
		return l.Setting
	}
	if family == "memory" {
		return FormatMemory(int64(n * scale / 1024))
	}
	ms := n * scale
	if ms >= 1000 && int64(ms)%1000 == 0 {
		return FormatDuration(int64(ms / 1000))
	}
	return strconv.FormatInt(int64(ms), 10) + "ms"
}

// ReadServer reads pg_settings for the given names (all settings when none are
// given) and the server's major version.
func ReadServer(ctx context.Context, q Querier, names ...string) (map[string]Live, int, error) {
	const sql = `SELECT name, setting, coalesce(unit,''), vartype, coalesce(min_val,''), coalesce(max_val,''),
	        coalesce(enumvals, '{}'::text[]), context, coalesce(boot_val,''), coalesce(source,''), pending_restart,
	        current_setting('server_version_num')::int
	   FROM pg_settings WHERE cardinality($1::text[]) = 0 OR name = ANY($1::text[])`
	if names == nil {
		names = []string{}
	}
	rows, err := q.Query(ctx, sql, names)
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
		if err := rows.Scan(&l.Name, &l.Setting, &l.Unit, &kind, &min, &max, &l.Enum, &ctxName, &l.BootVal, &l.Source, &l.PendingRestart, &num); err != nil {
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
	return out, major, nil
}

// ValidateLive checks value for name against a live server's pg_settings row
// when there is one, and against the catalog otherwise.
func ValidateLive(live map[string]Live, major int, name, value string) error {
	name = strings.ToLower(strings.TrimSpace(name))
	l, ok := live[name]
	if !ok {
		if live != nil {
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
