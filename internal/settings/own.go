package settings

import (
	"context"
	"fmt"
	"strings"
)

// InjectRows is pgoltp's own setting for a known effect (issue 29, "how to
// prove it"): a ledger transaction also counts this many rows of
// generate_series on the server, a fixed amount of server work. A step that
// sets it has an effect whose size is known from long runs, and like any
// reload setting it can be switched within a run.
const InjectRows = "pgoltp.inject_rows"

// own are pgoltp's own placeholder settings: PostgreSQL keeps a value for
// any name with a prefix, for whoever reads it (current_setting), but
// pg_settings does not list it. They are in Lookup (so labels, validation
// and the switchback design know them) but not in the catalog of the
// server's settings.
var own = []Setting{
	num(InjectRows, Integer, "", 0, 100_000_000, User,
		"test only: rows of generate_series a ledger transaction counts on the server, a known extra cost per transaction"),
}

// known is everything Lookup finds: the server's settings and pgoltp's own.
var known = append(catalog[:len(catalog):len(catalog)], own...)

// Own says whether name is one of pgoltp's own placeholder settings.
func Own(name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, s := range own {
		if s.Name == name {
			return true
		}
	}
	return false
}

// readOwn adds to out the value of each of names that is pgoltp's own
// setting, as a fresh session sees it; a setting nobody set is left out,
// as it would be from pg_settings.
func readOwn(ctx context.Context, q Querier, names []string, out map[string]Live) error {
	for _, name := range names {
		if !Own(name) {
			continue
		}
		s, _ := Lookup(name, 0)
		rows, err := q.Query(ctx, "SELECT coalesce(current_setting($1, true), '')", s.Name)
		if err != nil {
			return fmt.Errorf("reading %s: %w", s.Name, err)
		}
		var v string
		for rows.Next() {
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return fmt.Errorf("reading %s: %w", s.Name, err)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("reading %s: %w", s.Name, err)
		}
		if v != "" {
			out[s.Name] = Live{Range: s.Range, Name: s.Name, Setting: v, Source: "configuration file", Context: s.Context}
		}
	}
	return nil
}

// DeclareOwn makes name known to the session q before ALTER SYSTEM sets or
// resets it when it is one of pgoltp's own settings: before PostgreSQL 17,
// ALTER SYSTEM refuses a custom name the session has not seen. The
// session's own value is an empty string; nothing outside the session
// changes.
func DeclareOwn(ctx context.Context, q Querier, name string) error {
	if !Own(name) {
		return nil
	}
	rows, err := q.Query(ctx, "SELECT set_config($1, coalesce(current_setting($1, true), ''), false)", strings.ToLower(strings.TrimSpace(name)))
	if err != nil {
		return fmt.Errorf("declaring %s: %w", name, err)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("declaring %s: %w", name, err)
	}
	return nil
}
