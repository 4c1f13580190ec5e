package settings_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/settings"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

func TestLabel(t *testing.T) {
	cases := []struct {
		name, value string
		want        settings.Risk
	}{
		{"fsync", "off", settings.CanCorruptOnCrash},
		{"fsync", "on", settings.Safe},
		{"full_page_writes", "false", settings.CanCorruptOnCrash},
		{"synchronous_commit", "off", settings.CanLoseDataOnCrash},
		{"synchronous_commit", "local", settings.Safe},
		{"synchronous_commit", "on", settings.Safe},
		{"shared_buffers", "8GB", settings.Restart},
		{"huge_pages", "on", settings.Restart},
		{"work_mem", "64MB", settings.Safe},
		{"data_sync_retry", "on", settings.CanCorruptOnCrash},
		{"data_sync_retry", "off", settings.Restart},
		{"autovacuum_max_workers", "6", settings.Restart}, // restart before 18: the cautious answer
		{"no_such_setting", "1", settings.Unknown},
	}
	for _, c := range cases {
		got, why := settings.LabelFor(0, c.name, c.value)
		if got != c.want || why == "" {
			t.Errorf("LabelFor(0, %s, %s) = %s %q, want %s with a reason", c.name, c.value, got, why, c.want)
		}
	}
	if r, _ := settings.LabelFor(18, "autovacuum_max_workers", "6"); r != settings.Safe {
		t.Errorf("on 18 autovacuum_max_workers reloads, got %s", r)
	}
	if !settings.CanLoseDataOnCrash.Unsafe() || settings.Restart.Unsafe() {
		t.Error("Unsafe must hold exactly for the two durability classes")
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		major       int
		name, value string
		ok          bool
	}{
		{15, "shared_buffers", "128kB", true},
		{15, "shared_buffers", "64kB", false}, // below 16 pages
		{15, "shared_buffers", "1GB", true},
		{15, "shared_buffers", "1 GB", true},
		{15, "shared_buffers", "1Gb", false}, // units are case-sensitive in PostgreSQL
		{15, "max_wal_size", "1MB", false},
		{15, "checkpoint_timeout", "15min", true},
		{15, "checkpoint_timeout", "10s", false},
		{15, "checkpoint_completion_target", "1.5", false},
		{15, "wal_compression", "lz4", true},
		{14, "wal_compression", "lz4", false},
		{14, "wal_compression", "on", true},
		{17, "io_method", "worker", false},
		{18, "io_method", "worker", true},
		{18, "io_method", "threads", false},
		{15, "synchronous_commit", "off", true},
		{15, "fsync", "maybe", false},
		{15, "work_mem", "32", false}, // 32kB < 64kB
		{15, "block_size", "8192", false},
		{15, "no_such_setting", "1", false},
	}
	for _, c := range cases {
		err := settings.Validate(c.major, c.name, c.value)
		if (err == nil) != c.ok {
			t.Errorf("Validate(%d, %s, %s) = %v, want ok=%v", c.major, c.name, c.value, err, c.ok)
		}
	}
}

func TestToUnit(t *testing.T) {
	cases := []struct {
		value, unit string
		want        float64
	}{
		{"1GB", "8kB", 131072},
		{"256MB", "kB", 262144},
		{"5min", "s", 300},
		{"2s", "ms", 2000},
		{"4096", "kB", 4096},
		{"0.9", "", 0.9},
		{"1e3kB", "kB", 1000},
		{"1.5e1MB", "kB", 15360},
		{"2E-1s", "ms", 200},
	}
	for _, c := range cases {
		got, err := settings.ToUnit(c.value, c.unit)
		if err != nil || got != c.want {
			t.Errorf("ToUnit(%s, %s) = %v, %v; want %v", c.value, c.unit, got, err, c.want)
		}
	}
	if got := settings.FormatMemory(1536 * 1024); got != "1536MB" {
		t.Errorf("FormatMemory = %s", got)
	}
}

// ToUnit reads a value as the server does: each value below is set in a
// session and the server's own reading (pg_settings.setting, in the
// setting's unit) must be what ToUnit returns.
func TestToUnitMatchesServer(t *testing.T) {
	ctx := context.Background()
	conn, _ := pgtest.Conn(t)
	cases := []struct{ name, value string }{
		{"work_mem", "1e3kB"}, {"work_mem", "1.5e1MB"}, {"work_mem", "4096"}, {"work_mem", "1GB"},
		{"statement_timeout", "2E-1s"}, {"statement_timeout", "5min"}, {"statement_timeout", "1.5s"},
	}
	for _, c := range cases {
		var setting, unit string
		err := conn.QueryRow(ctx, `SELECT set_config($1, $2, false) IS NOT NULL,
			(SELECT setting || '|' || coalesce(unit, '') FROM pg_settings WHERE name = $1)`,
			c.name, c.value).Scan(new(bool), &setting)
		if err != nil {
			t.Fatalf("the server refused %s = %s: %v", c.name, c.value, err)
		}
		setting, unit, _ = strings.Cut(setting, "|")
		got, err := settings.ToUnit(c.value, unit)
		if err != nil || strconv.FormatFloat(got, 'f', -1, 64) != setting {
			t.Errorf("ToUnit(%s, %s) = %v, %v; the server reads %s", c.value, unit, got, err, setting)
		}
	}
}

// TestCatalogMatchesServer holds the catalog to a real server: for every
// setting the catalog knows on this version, type, unit, context and range
// must be what pg_settings reports, and every value the server accepts for an
// enum must be known to the catalog.
func TestCatalogMatchesServer(t *testing.T) {
	ctx := context.Background()
	conn, _ := pgtest.Conn(t)
	live, major, err := settings.ReadServer(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range settings.Names(major) {
		s, _ := settings.Lookup(name, major)
		l, ok := live[name]
		if !ok {
			t.Errorf("%s: in the catalog for PostgreSQL %d but not on the server", name, major)
			continue
		}
		if s.Kind != l.Kind || s.Unit != l.Unit || s.Context != l.Context {
			t.Errorf("%s: catalog %s/%q/%s, server %s/%q/%s", name, s.Kind, s.Unit, s.Context, l.Kind, l.Unit, l.Context)
		}
		if (s.Kind == settings.Integer || s.Kind == settings.Real) && (s.Min != l.Min || s.Max != l.Max) {
			t.Errorf("%s: catalog range %v..%v, server %v..%v", name, s.Min, s.Max, l.Min, l.Max)
		}
		for _, e := range l.Enum {
			if s.Range.Check(e) != nil {
				t.Errorf("%s: the server accepts %q, the catalog does not", name, e)
			}
		}
		// Validating the server's current value must pass both ways, except
		// for settings pgoltp refuses to set whatever the value.
		if refused, _ := settings.Refused(name); refused {
			if settings.ValidateLive(live, major, name, l.Value()) == nil {
				t.Errorf("%s: refused, yet its value validates", name)
			}
			continue
		}
		if !s.ReadOnly() {
			if err := settings.ValidateLive(live, major, name, l.Value()); err != nil {
				t.Errorf("%s: the server's own value fails: %v", name, err)
			}
		}
	}
}

func TestCheckTogether(t *testing.T) {
	cases := []struct {
		values map[string]string
		ok     bool
	}{
		{map[string]string{"wal_level": "minimal", "max_wal_senders": "10"}, false},
		{map[string]string{"wal_level": "minimal", "max_wal_senders": "0", "archive_mode": "off"}, true},
		{map[string]string{"wal_level": "minimal", "max_wal_senders": "0", "archive_mode": "on"}, false},
		{map[string]string{"wal_level": "replica", "max_wal_senders": "10"}, true},
		{map[string]string{"wal_level": "'Minimal'", "max_wal_senders": "5"}, false},
	}
	for _, c := range cases {
		if err := settings.CheckTogether(c.values); (err == nil) != c.ok {
			t.Errorf("CheckTogether(%v) = %v, want ok=%v", c.values, err, c.ok)
		}
	}
}

// TestRefused: settings that open the server to the network, run programs or
// load code, or move the lab's files are refused by every validation path,
// whatever the value; ordinary and durability settings are not.
func TestRefused(t *testing.T) {
	refused := []string{"listen_addresses", "port", "ssl", "ssl_cert_file", "ssl_passphrase_command", "SSL_ciphers",
		"archive_command", "restore_command", "archive_cleanup_command", "recovery_end_command", "archive_library",
		"shared_preload_libraries", "local_preload_libraries", "session_preload_libraries", "dynamic_library_path",
		"data_directory", "hba_file", "ident_file", "config_file", "external_pid_file",
		"unix_socket_directories", "unix_socket_group", "unix_socket_permissions", " Some_Future_Command ",
		"jit_provider", "oauth_validator_libraries", "output_plugin_libraries", "extension_control_path", "plperl.on_init",
		"bonjour", "bonjour_name", "krb_server_keyfile", "promote_trigger_file", "log_directory", "log_filename",
		"stats_temp_directory", "myext.some_library", "myext.key_file"}
	for _, name := range refused {
		if ok, why := settings.Refused(name); !ok || why == "" {
			t.Errorf("Refused(%q) = %v %q, want refused with a reason", name, ok, why)
		}
		if err := settings.Validate(15, name, "x"); err == nil || !strings.Contains(err.Error(), "never sets") {
			t.Errorf("Validate(%q) = %v, want a refusal", name, err)
		}
		live := map[string]settings.Live{strings.ToLower(strings.TrimSpace(name)): {Name: name, Range: settings.Range{Kind: settings.String}, Context: settings.Sighup}}
		if err := settings.ValidateLive(live, 15, name, "x"); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ValidateLive(%q) = %v, want a one-line refusal", name, err)
		}
		if err := settings.CheckApplicable(map[string]string{"work_mem": "64MB", name: "x"}); err == nil {
			t.Errorf("CheckApplicable with %q passed", name)
		}
	}
	for _, name := range []string{"shared_buffers", "fsync", "synchronous_commit", "archive_mode", "wal_level", "work_mem", "portal_something", "sslx",
		"jit", "search_path", "log_min_duration_statement", "log_checkpoints", "log_file_mode", "temp_file_limit", "pg_stat_statements.track"} {
		if ok, why := settings.Refused(name); ok {
			t.Errorf("Refused(%q) = true (%s), want allowed", name, why)
		}
	}
	if err := settings.CheckApplicable(map[string]string{"fsync": "off", "work_mem": "64MB"}); err != nil {
		t.Errorf("CheckApplicable of ordinary settings: %v", err)
	}
}

func TestLabelledRedactsSecrets(t *testing.T) {
	if p := settings.Labelled(15, map[string]string{"primary_conninfo": "password=hunter2"}); p[0].Value != secret.Redacted {
		t.Errorf("Labelled shows %q", p[0].Value)
	}
}
