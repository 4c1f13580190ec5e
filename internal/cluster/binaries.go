package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Binaries is one PostgreSQL installation: the directory holding initdb, pg_ctl
// and postgres, and the version they report.
type Binaries struct {
	Dir     string // directory of initdb, pg_ctl and postgres
	Major   int    // 10 … 18
	Version string // "15.18"
	Source  string // "system" or "download"
}

// Tool returns the path of one of the installation's programs.
func (b Binaries) Tool(name string) string { return filepath.Join(b.Dir, name) }

var versionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+)(?:\.(\d+))?`)

// probe asks a directory's postgres for its version; ok is false when the
// directory does not hold a complete, runnable server installation.
func probe(dir, source string) (Binaries, bool) {
	for _, tool := range []string{"initdb", "pg_ctl", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, tool)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return Binaries{}, false
		}
	}
	out, err := exec.Command(filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return Binaries{}, false
	}
	m := versionRE.FindStringSubmatch(string(out))
	if m == nil {
		return Binaries{}, false
	}
	major, _ := strconv.Atoi(m[1])
	version := m[1]
	if m[2] != "" {
		version += "." + m[2]
	}
	return Binaries{Dir: dir, Major: major, Version: version, Source: source}, true
}

// systemDirs lists the places PostgreSQL packages install their binaries: PATH,
// Debian/Ubuntu, RPM (PGDG) and source builds.
func systemDirs() []string {
	var dirs []string
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, pattern := range []string{
		"/usr/lib/postgresql/*/bin",
		"/usr/pgsql-*/bin",
		"/usr/local/pgsql/bin",
		"/opt/homebrew/opt/postgresql@*/bin",
	} {
		m, _ := filepath.Glob(pattern)
		dirs = append(dirs, m...)
	}
	return dirs
}

// FindInstalled returns every PostgreSQL installation found on this machine and
// in the download cache, newest major first. Builds of the cache count only
// if the cache is safe (checkCache) and they are what pgoltp unpacked.
func FindInstalled(cacheDir string) []Binaries { return findInstalled(cacheDir, 0) }

// findInstalled is FindInstalled, with the cache's builds limited to one
// major (0: all): each is verified, file by file, before it is run.
func findInstalled(cacheDir string, major int) []Binaries {
	seen := map[string]bool{}
	var found []Binaries
	add := func(dir, source string) {
		dir = filepath.Clean(dir)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if seen[dir] {
			return
		}
		seen[dir] = true
		if b, ok := probe(dir, source); ok {
			found = append(found, b)
		}
	}
	for _, d := range systemDirs() {
		add(d, "system")
	}
	if cacheDir != "" && checkCache(cacheDir) == nil {
		prefix := "postgres-"
		if major != 0 {
			prefix += strconv.Itoa(major) + "."
		}
		m, _ := filepath.Glob(filepath.Join(cacheDir, prefix+"*", "bin"))
		for _, d := range m {
			if verifyTree(filepath.Dir(d)) == nil {
				add(d, "download")
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Major != found[j].Major {
			return found[i].Major > found[j].Major
		}
		return versionLess(found[j].Version, found[i].Version)
	})
	return found
}

// DefaultMajor is the major of a new cluster without --pg on a machine that
// has no PostgreSQL of its own (it is then downloaded).
const DefaultMajor = 18

// DefaultBinaries is the one rule for a new cluster without --pg: the
// machine's own PostgreSQL (its newest major, if it has several); ok=false
// when it has none, and then DefaultMajor is used. What the download cache
// holds never counts: another command's download must not change the server
// the same command gets.
func DefaultBinaries() (Binaries, bool) {
	for _, b := range FindInstalled("") {
		if b.Source == "system" {
			return b, true
		}
	}
	return Binaries{}, false
}

// Find returns an installation of the given major (0: the newest found), or
// ok=false when none is installed.
func Find(major int, cacheDir string) (Binaries, bool) {
	for _, b := range findInstalled(cacheDir, major) {
		if major == 0 || b.Major == major {
			return b, true
		}
	}
	return Binaries{}, false
}

func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

// SupportedMajors are the PostgreSQL majors pgoltp manages and can download.
var SupportedMajors = []int{10, 11, 12, 13, 14, 15, 16, 17, 18}

// ValidMajor reports whether major is one pgoltp supports (0 means the default).
func ValidMajor(major int) error {
	if major == 0 {
		return nil
	}
	for _, m := range SupportedMajors {
		if m == major {
			return nil
		}
	}
	return fmt.Errorf("PostgreSQL %d is not supported (supported: %d to %d)", major, SupportedMajors[0], SupportedMajors[len(SupportedMajors)-1])
}
