package settings

import (
	"fmt"
	"strings"
)

// CheckTogether checks values that PostgreSQL accepts one by one but refuses
// together at start, so that the server would not come back after a restart
// (and a lab cluster would be left down). values are the effective settings
// after the change: the server's current values overlaid with the new ones.
func CheckTogether(values map[string]string) error {
	get := func(name string) string { return strings.ToLower(strings.Trim(strings.TrimSpace(values[name]), "'")) }
	if get("wal_level") == "minimal" {
		// xlog.c: "WAL streaming (max_wal_senders > 0) requires wal_level replica or logical".
		if s := get("max_wal_senders"); s != "" && s != "0" {
			return fmt.Errorf("wal_level=minimal needs max_wal_senders=0 (it is %s): the server would not start", s)
		}
		// xlog.c: "WAL archival cannot be enabled when wal_level is minimal".
		if a := get("archive_mode"); a != "" && a != "off" {
			return fmt.Errorf("wal_level=minimal needs archive_mode=off (it is %s): the server would not start", a)
		}
	}
	return nil
}
