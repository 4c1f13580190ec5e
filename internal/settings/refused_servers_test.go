package settings_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// allowedDespitePattern are the server settings that look like what Refused
// is about (a string naming something, in a network or file category) yet
// are deliberately left settable, each with the reason.
var allowedDespitePattern = map[string]string{
	"search_path":            "names schemas, not files (what it does to pgoltp's own sessions is a matter of session settings, not of this list)",
	"temp_tablespaces":       "names tablespaces, which only SQL (CREATE TABLESPACE) can point at a directory",
	"timezone_abbreviations": "a file name PostgreSQL looks up only in its own share/timezonesets (it refuses any path)",
	"syslog_ident":           "a label in syslog messages, no file or address",
	"event_source":           "the Windows event log's source name; no file, and unused elsewhere",
	"log_connections":        "a string only on 18 (which connection events to log); logs, no file or address",
	"debug_io_direct":        "16+: which kinds of files (data, wal) bypass the page cache; names no file",
	"primary_conninfo":       "only a standby connects with it and pgoltp's servers are primaries; its password is redacted everywhere (Redact)",
}

// dangerousSuffix: the names PostgreSQL gives settings that name a file,
// directory, program, library or code provider.
var dangerousSuffix = regexp.MustCompile(`(file|_dir|_directory|_directories|_command|_library|_libraries|_path|_provider|_conninfo)$`)

// dangerousWords: the same, said in the setting's description.
var dangerousWords = regexp.MustCompile(`(?i)\b(file|files|directory|directories|library|libraries|command|program|socket|address|address\(es\)|addresses|port|path|plugins?|connection string|host)\b`)

// serverSetting is one row of pg_settings, as much as the patterns need.
type serverSetting struct{ name, vartype, category, desc string }

// looksDangerous: a setting that loads code, runs a command, opens or
// announces a port, or names a file, by its name, category or description.
func looksDangerous(s serverSetting) bool {
	switch {
	case s.name == "port" || strings.HasPrefix(s.name, "bonjour") || strings.HasPrefix(s.name, "ssl") || strings.HasPrefix(s.name, "unix_socket_"):
		return true
	case strings.Contains(s.category, "File Locations") || strings.Contains(s.category, "SSL") || strings.Contains(s.category, "Library Preloading"):
		return true
	}
	return s.vartype == "string" && (strings.Contains(s.category, "Connections and Authentication") ||
		dangerousSuffix.MatchString(s.name) || dangerousWords.MatchString(s.desc))
}

// TestRefusedCoversServerSettings reads pg_settings of every major from 10
// to 18 (downloaded once into the shared cache, as compare-versions does;
// with -short, only the test server's major) and checks that every setting
// that looks dangerous is refused or deliberately allowed: a setting a new
// major adds (jit_provider was missed) fails here until someone decides.
func TestRefusedCoversServerSettings(t *testing.T) {
	majors := []int{0} // the shared test server
	if !testing.Short() {
		majors = []int{10, 11, 12, 13, 14, 15, 16, 17, 18}
	}
	seen := map[string]bool{}
	for _, major := range majors {
		t.Run("pg"+strconv.Itoa(major), func(t *testing.T) {
			for _, s := range serverSettings(t, major) {
				seen[s.name] = true
				if !looksDangerous(s) {
					continue
				}
				refused, _ := settings.Refused(s.name)
				if !refused && allowedDespitePattern[s.name] == "" {
					t.Errorf("PostgreSQL %d: %s (%s, %s: %q) is neither refused (settings.Refused) nor on the allow-list with a reason",
						major, s.name, s.vartype, s.category, s.desc)
				}
			}
		})
	}
	for name := range allowedDespitePattern {
		if refused, _ := settings.Refused(name); refused {
			t.Errorf("%s is both refused and on the allow-list", name)
		}
		if len(majors) > 1 && !seen[name] {
			t.Errorf("%s is on the allow-list but no major from 10 to 18 has it", name)
		}
	}
	for _, name := range []string{"jit_provider", "listen_addresses", "archive_command", "port", "shared_preload_libraries", "config_file"} {
		if !seen[name] {
			t.Errorf("%s missing from every pg_settings read: the test read nothing useful", name)
		}
	}
}

// serverSettings reads pg_settings of a server of major (0: the shared test
// server), started in a lab of its own and destroyed afterwards.
func serverSettings(t *testing.T, major int) []serverSetting {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dsn := ""
	if major == 0 {
		dsn = pgtest.AdminDSN(t)
	} else {
		c, err := cluster.Up(ctx, cluster.Options{Lab: pgtest.LabDir(t), Major: major})
		if err != nil {
			t.Fatalf("PostgreSQL %d: %v", major, err)
		}
		defer c.Destroy(context.Background())
		dsn = c.DSN("postgres")
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT name, vartype, category, short_desc FROM pg_settings")
	if err != nil {
		t.Fatal(err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (serverSetting, error) {
		var s serverSetting
		err := r.Scan(&s.name, &s.vartype, &s.category, &s.desc)
		return s, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}
