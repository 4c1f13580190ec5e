package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// refusedSamples are settings pgoltp never sets, one of each kind: network,
// program, port, code, file. Each goes with archive_mode=on, which sorts
// before them and is allowed: it must not be half-applied either.
var refusedSamples = [][2]string{
	{"listen_addresses", "*"},
	{"archive_command", "touch pwned_%f"},
	{"port", "1"},
	{"jit_provider", "llvmjit"},
	{"shared_preload_libraries", "auto_explain"},
	{"log_directory", "/tmp"},
}

// settingSurface is one way a setting reaches pgoltp: a command's flag or a
// plan key. args returns the command line for name=value.
type settingSurface struct {
	name string
	flag string // "command --flag" when the surface is a flag, for TestEverySettingFlagIsCovered
	args func(t *testing.T, name, value string) []string
}

// settingSurfaces are every command flag and plan key that carries a server
// setting (a plan's layout: holds table options, not settings; tune searches
// only its own catalog space, which leaves refused settings out, see
// internal/tune; quickstart, cluster, tpcb, tpcc, advise and doctor take
// none, as TestEverySettingFlagIsCovered checks). dsn is a database on the shared test server (the --dsn path,
// server.External); lab is the shared managed cluster's lab (cluster.Apply),
// or "" when the tests run against an external server.
func settingSurfaces(dsn, lab, fresh string) []settingSurface {
	plan := func(t *testing.T, body string) string {
		p := filepath.Join(t.TempDir(), "plan.yaml")
		if err := os.WriteFile(p, []byte("workload: {kind: tpcb, scale: 1, clients: 1}\nduration: 1s\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kv := func(name, value string) string { return fmt.Sprintf("{archive_mode: 'on', %s: '%s'}", name, value) }
	s := []settingSurface{
		{"compare-versions --set", "compare-versions --set", func(t *testing.T, n, v string) []string {
			return []string{"--lab", fresh, "compare-versions", "--pg", "15,16", "--scale", "1", "--duration", "1s", "--set", "archive_mode=on", "--set", n + "=" + v}
		}},
		{"plan versions: baseline", "", func(t *testing.T, n, v string) []string {
			return []string{"--lab", fresh, "experiment", plan(t, "versions: [15, 16]\nbaseline: {settings: "+kv(n, v)+"}\n")}
		}},
		{"plan baseline --dsn", "", func(t *testing.T, n, v string) []string {
			return []string{"--dsn", dsn, "experiment", "--allow-unsafe", plan(t, "baseline: {settings: "+kv(n, v)+"}\nsteps: [{settings: {work_mem: 8MB}}]\n")}
		}},
		{"plan steps --dsn", "", func(t *testing.T, n, v string) []string {
			return []string{"--dsn", dsn, "experiment", "--allow-unsafe", plan(t, "steps: [{settings: {work_mem: 8MB}}, {settings: "+kv(n, v)+"}]\n")}
		}},
		{"tune --test-inject --dsn", "tune --test-inject", func(t *testing.T, n, v string) []string {
			return []string{"--dsn", dsn, "tune", "--budget", "2", "--trial", "1s", "--test-inject", "1:archive_mode=on", "--test-inject", "1:" + n + "=" + v}
		}},
	}
	if lab == "" {
		return s
	}
	return append(s,
		settingSurface{"experiment --crash --set", "experiment --set", func(t *testing.T, n, v string) []string {
			return []string{"--lab", lab, "experiment", "--crash", "--allow-unsafe", "--set", "archive_mode=on", "--set", n + "=" + v}
		}},
		settingSurface{"plan steps, managed cluster", "", func(t *testing.T, n, v string) []string {
			return []string{"--lab", lab, "experiment", "--allow-unsafe", plan(t, "baseline: {settings: "+kv(n, v)+"}\nsteps: [{settings: "+kv(n, v)+"}]\n")}
		}})
}

// TestRefusedSettingsEverywhere: every command flag and plan key that can
// carry a setting refuses the settings pgoltp never sets (compare-versions
// and versions: plans once applied them), with exit 2 and one line naming the
// setting, and leaves the server as it was: pg_settings and
// postgresql.auto.conf, read on the server afterwards.
func TestRefusedSettingsEverywhere(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	admin := pgtest.AdminDSN(t)
	lab := ""
	t.Run("managed cluster", func(t *testing.T) { lab = pgtest.Cluster(t).Lab })
	fresh := labDir(t)
	before := serverSettingsState(t, admin)
	for _, surface := range settingSurfaces(dsn, lab, fresh) {
		for _, s := range refusedSamples {
			t.Run(surface.name+"/"+s[0], func(t *testing.T) {
				r := runPgoltp(t, time.Minute, surface.args(t, s[0], s[1])...)
				assertOneLineProblem(t, r, "never sets "+s[0])
			})
		}
	}
	if after := serverSettingsState(t, admin); after != before {
		t.Errorf("the server changed:\nbefore %s\nafter  %s", before, after)
	}
	// compare-versions and versions: plans make a cluster per major: none was made.
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(fresh)
		t.Errorf("refused settings left the lab %s behind (%d entries)", fresh, len(entries))
		for _, m := range []string{"15", "16"} {
			runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", filepath.Join(fresh, "pg"+m))
		}
	}
}

// serverSettingsState is what a refused setting could have changed: the
// settings (with any change waiting for a restart) and postgresql.auto.conf.
func serverSettingsState(t *testing.T, dsn string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	names := []string{"archive_mode", "work_mem"}
	for _, s := range refusedSamples {
		names = append(names, s[0])
	}
	var settings, autoConf string
	err = conn.QueryRow(ctx, `SELECT string_agg(name || '=' || setting || CASE WHEN pending_restart THEN ' (pending restart)' ELSE '' END, ', ' ORDER BY name)
		FROM pg_settings WHERE name = ANY($1)`, names).Scan(&settings)
	if err == nil {
		err = conn.QueryRow(ctx, "SELECT coalesce(pg_read_file('postgresql.auto.conf', 0, 100000, true), '')").Scan(&autoConf)
	}
	if err != nil {
		t.Fatal(err)
	}
	return settings + "\npostgresql.auto.conf:\n" + autoConf
}

// TestEverySettingFlagIsCovered walks every command's --help: a flag that
// takes settings as name=value must be one TestRefusedSettingsEverywhere
// runs, so that a new one cannot be added without it.
func TestEverySettingFlagIsCovered(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, s := range settingSurfaces("dsn", "lab", "fresh") {
		if s.flag != "" {
			covered[s.flag] = true
		}
	}
	flagLine := regexp.MustCompile(`^\s+(?:-\w, )?(--[\w-]+)\b.*name=value`)
	var found []string
	var walk func(path []string)
	walk = func(path []string) {
		r := runPgoltp(t, time.Minute, append(path, "--help")...)
		if r.code != 0 {
			t.Fatalf("pgoltp %s --help: exit %d %s", strings.Join(path, " "), r.code, r.stderr)
		}
		section := ""
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
				section = line
				continue
			}
			fields := strings.Fields(line)
			switch {
			case section == "Available Commands:" && len(fields) > 0 && fields[0] != "help" && fields[0] != "completion":
				walk(append(append([]string{}, path...), fields[0]))
			case section == "Flags:":
				if m := flagLine.FindStringSubmatch(line); m != nil {
					found = append(found, strings.Join(append(append([]string{}, path...), m[1]), " "))
				}
			}
		}
	}
	walk(nil)
	sort.Strings(found)
	if len(found) == 0 {
		t.Fatal("no flag takes name=value: the walk read nothing")
	}
	for _, f := range found {
		if !covered[f] {
			t.Errorf("%s takes settings, and TestRefusedSettingsEverywhere does not try it", f)
		}
	}
	t.Logf("flags that take settings: %v", found)
}
