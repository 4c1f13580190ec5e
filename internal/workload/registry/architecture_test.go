package registry_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pgoltp/pgoltp"

// root is the module's directory, seen from this package's.
const root = "../../.."

// forbidden maps each phrase of docs/ARCHITECTURE.md's "must not know"
// column to the import paths it means. A path ending in "/..." forbids
// everything under it (but the package itself). A nil entry is a rule about
// code, not imports (what cmd holds, what a parameter means): review keeps
// it. A phrase the document uses and this map lacks fails the test, so the
// page and the check cannot drift apart; a backquoted package name needs no
// entry.
var forbidden = map[string][]string{
	"the CLI": {"github.com/spf13/cobra", "github.com/spf13/pflag", module + "/cmd/pgoltp"},
	// The CLI but pflag: for a package that imports tune, which still
	// declares its own flags (issue 26 point 5); TestFlagDeclarers keeps
	// pflag out of the package itself.

	"TPC-C":                                {module + "/internal/workload/tpcc"},
	"TPC-B":                                {module + "/internal/workload/tpcb"},
	"workloads":                            workloads,
	"any particular workload":              workloads,
	"PostgreSQL specifics of any workload": workloads,
	"the registry":                         {module + "/internal/workload/registry"},

	"collectors":                 {module + "/internal/collect"},
	"the store":                  {module + "/internal/store"},
	"results":                    {module + "/internal/store"},
	"recording":                  {module + "/internal/recorder"},
	"rendering":                  {module + "/internal/report"},
	"rendering the report":       {module + "/internal/report"},
	"the managed cluster":        {module + "/internal/cluster"},
	"how settings are applied":   {module + "/internal/cluster", module + "/internal/server"},
	"running anything":           {module + "/internal/driver", module + "/internal/workload", module + "/internal/recorder", module + "/internal/cluster", module + "/internal/server"},
	"what the files contain":     {module + "/internal/store", module + "/internal/collect", module + "/internal/recorder", module + "/internal/workload"},
	"PostgreSQL":                 {"github.com/jackc/pgx/v5/..."},
	"pgoltp's types":             {module + "/..."},
	"the workload's connections": append([]string{module + "/internal/workload", module + "/internal/driver"}, workloads...),

	"SQL":                      nil, // cmd imports everything below it
	"result mapping":           nil,
	"run sequences":            nil,
	"what the parameter means": nil,
	// server imports cluster for cluster.ApplySettings alone, the one code
	// that runs ALTER SYSTEM; the lifecycle functions are what it must not call.
	"the managed cluster's lifecycle": nil,
}

var workloads = []string{module + "/internal/workload/tpcc", module + "/internal/workload/tpcb", module + "/internal/workload/ledger", module + "/internal/workload/script"}

// TestArchitectureTable: no package imports, directly or not, what its row
// of docs/ARCHITECTURE.md's table says it must not know.
func TestArchitectureTable(t *testing.T) {
	rows := architectureRows(t)
	if len(rows) < 10 {
		t.Fatalf("found %d rows in the table of docs/ARCHITECTURE.md, want every package's", len(rows))
	}
	used := map[string]bool{}
	for _, r := range rows {
		var banned []string
		for _, phrase := range r.mustNot {
			paths, ok := forbidden[phrase]
			used[phrase] = true
			if p, isPkg := packagePath(phrase); isPkg {
				paths, ok = []string{p}, true
			}
			if !ok {
				t.Errorf("docs/ARCHITECTURE.md: %v must not know %q, which this test cannot map to packages: add it to forbidden", r.pkgs, phrase)
			}
			banned = append(banned, paths...)
		}
		for _, pkg := range r.pkgs {
			for _, dep := range deps(t, pkg) {
				if dep != pkg && matchesAny(dep, banned) {
					t.Errorf("%s depends on %s, which docs/ARCHITECTURE.md says it must not know", pkg, dep)
				}
			}
		}
	}
	for phrase := range forbidden {
		if !used[phrase] {
			t.Errorf("forbidden[%q]: docs/ARCHITECTURE.md no longer says it; remove it", phrase)
		}
	}
}

// flagDeclarers are the packages outside cmd that still declare their own
// flags next to their options (AddFlags, so they import pflag). Issue 26
// point 5 moves flags to cmd; this list only shrinks.
var flagDeclarers = []string{}

// TestFlagDeclarers: no other package outside cmd starts importing pflag.
func TestFlagDeclarers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if slices.Contains(fields[1:], "github.com/spf13/pflag") {
			got = append(got, strings.TrimPrefix(fields[0], module+"/internal/"))
		}
	}
	if !slices.Equal(got, flagDeclarers) {
		t.Errorf("packages outside cmd importing pflag: %v, want %v (flags belong in cmd/pgoltp)", got, flagDeclarers)
	}
}

type architectureRow struct {
	pkgs    []string // import paths
	mustNot []string // phrases
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// architectureRows reads the table under "What each package owns, and must
// not know": its first column names packages, its last what they must not
// know, comma-separated, with remarks in parentheses.
func architectureRows(t *testing.T) []architectureRow {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## What each package owns, and must not know")
	if !ok {
		t.Fatal(`docs/ARCHITECTURE.md has no section "What each package owns, and must not know"`)
	}
	var rows []architectureRow
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue // the header, its rule, prose
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 {
			t.Errorf("docs/ARCHITECTURE.md: a row of %d cells, want 3 (package, owns, must not know): %.60s", len(cells), line)
			continue
		}
		var r architectureRow
		for _, m := range backquoted.FindAllStringSubmatch(cells[0], -1) {
			p, ok := packagePath("`" + m[1] + "`")
			if !ok {
				t.Errorf("docs/ARCHITECTURE.md names %q, which is no package", m[1])
			}
			r.pkgs = append(r.pkgs, p)
		}
		for _, phrase := range strings.Split(withoutRemarks(cells[2]), ",") {
			if phrase = strings.TrimSpace(phrase); phrase != "" {
				r.mustNot = append(r.mustNot, phrase)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// withoutRemarks drops every parenthesised remark, nested or not.
func withoutRemarks(s string) string {
	var b strings.Builder
	depth := 0
	for _, c := range s {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// packagePath resolves a backquoted package name of the page (`tune`,
// `workload/tpcc`, `tpcb`, `cmd/pgoltp`) to its import path.
func packagePath(phrase string) (string, bool) {
	name, ok := strings.CutPrefix(phrase, "`")
	if name, ok = strings.CutSuffix(name, "`"); !ok || name == "" {
		return "", false
	}
	for _, dir := range []string{name, "internal/" + name, "internal/workload/" + name} {
		if st, err := os.Stat(filepath.Join(root, dir)); err == nil && st.IsDir() {
			return module + "/" + dir, true
		}
	}
	return "", false
}

func deps(t *testing.T, pkg string) []string {
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

func matchesAny(dep string, banned []string) bool {
	for _, b := range banned {
		if prefix, ok := strings.CutSuffix(b, "/..."); ok && strings.HasPrefix(dep, prefix+"/") || dep == b {
			return true
		}
	}
	return false
}
