package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// PostgreSQL builds that 'pgoltp build' compiled (issue 28) live in the
// cache beside the downloads, one directory each under builds/, with their
// record (build.json) and the same manifest as a download: every file's
// SHA-256, checked each time a cluster uses the build. This file reads them;
// internal/pgbuild makes them.

// Build is the record of one compiled PostgreSQL: what a run on it reports.
type Build struct {
	Name      string    `json:"name"`
	CC        string    `json:"cc"`         // gcc or clang
	CCVersion string    `json:"cc_version"` // the first line of its --version
	CFLAGS    string    `json:"cflags"`     // as given ("" = configure's default, -O2)
	Configure []string  `json:"configure"`  // the options given, beyond pgoltp's own (--prefix)
	Source    string    `json:"source"`     // the Debian source package: "postgresql-15 15.18-0+deb12u1"
	Version   string    `json:"version"`    // what its postgres reports: "15.18"
	BuiltAt   time.Time `json:"built_at"`
}

// BuildRecordName is the record's file in a build's directory.
const BuildRecordName = "build.json"

var buildNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,39}$`)

// ValidBuildName refuses a name that could not be a directory of its own
// under builds/.
func ValidBuildName(name string) error {
	if !buildNameRE.MatchString(name) {
		return fmt.Errorf("build name %q: use 1 to 40 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// BuildsDir is where the builds of a cache are.
func BuildsDir(cache string) string { return filepath.Join(cache, "builds") }

// BuildDir is the installation of one build (bin, lib, share).
func BuildDir(cache, name string) string { return filepath.Join(BuildsDir(cache), name) }

// ReadBuild returns the record of the build name in cache; a missing build
// is bad input naming the command that makes it.
func ReadBuild(cache, name string) (Build, error) {
	if err := ValidBuildName(name); err != nil {
		return Build{}, problem.BadInput("name a build that 'pgoltp build --list' shows", "%v", err)
	}
	f, err := openNoFollow(filepath.Join(BuildDir(cache, name), BuildRecordName), os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Build{}, problem.BadInput(fmt.Sprintf("run 'pgoltp build --name %s' first ('pgoltp build --list' shows the builds)", name),
			"no PostgreSQL build %q in %s", name, BuildsDir(cache))
	}
	if err != nil {
		return Build{}, err
	}
	defer f.Close()
	var b Build
	if err := json.NewDecoder(f).Decode(&b); err != nil {
		return Build{}, problem.Wrap(err, fmt.Sprintf("remove %s and build it again", BuildDir(cache, name)), "the record of build %q is damaged", name)
	}
	return b, nil
}

// ListBuilds returns the records of every build in cache, by name.
func ListBuilds(cache string) ([]Build, error) {
	entries, err := os.ReadDir(BuildsDir(cache))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var builds []Build
	for _, e := range entries {
		if !e.IsDir() || ValidBuildName(e.Name()) != nil {
			continue // a build under way (.NAME-*) or something else
		}
		if b, err := ReadBuild(cache, e.Name()); err == nil {
			builds = append(builds, b)
		}
	}
	sort.Slice(builds, func(i, j int) bool { return builds[i].Name < builds[j].Name })
	return builds, nil
}

// SealBuild writes the record and then the manifest of an installation in
// root (before it is renamed into place): the manifest covers the record.
func SealBuild(root string, b Build) error {
	rec, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	if err := writeNoFollow(filepath.Join(root, BuildRecordName), string(rec)+"\n", os.O_EXCL, 0o644); err != nil {
		return err
	}
	return writeManifest(root, "")
}

// CheckCache refuses a cache someone else could have put programs in.
func CheckCache(dir string) error { return checkCache(dir) }

// VerifyBuild checks that the build in root is what SealBuild sealed.
func VerifyBuild(root string) error { return verifyTree(root) }

// builtBinaries is the installation of a build (--build): from a cache
// pgoltp trusts, unchanged since it was sealed, a server that runs.
func builtBinaries(name string, major int) (Binaries, *Build, error) {
	cache := CacheDir()
	if err := checkCache(cache); err != nil {
		return Binaries{}, nil, err
	}
	b, err := ReadBuild(cache, name)
	if err != nil {
		return Binaries{}, nil, err
	}
	root := BuildDir(cache, name)
	if err := verifyTree(root); err != nil {
		return Binaries{}, nil, problem.Wrap(err, fmt.Sprintf("remove %s and run 'pgoltp build --name %s' again", root, name),
			"refusing to run the PostgreSQL build %q: it changed after pgoltp built it", name)
	}
	bins, ok := probe(filepath.Join(root, "bin"), "build")
	if !ok {
		return Binaries{}, nil, problem.BadInput(fmt.Sprintf("remove %s and run 'pgoltp build --name %s' again", root, name),
			"the PostgreSQL build %q does not run (its postgres reports no version)", name)
	}
	if major != 0 && major != bins.Major {
		return Binaries{}, nil, problem.BadInput(fmt.Sprintf("drop --pg, or give --pg %d", bins.Major), "the build %q is PostgreSQL %d, not %d", name, bins.Major, major)
	}
	return bins, &b, nil
}

// sameBuild refuses --build for a lab whose cluster runs on something else.
func sameBuild(c *Cluster, name string) error {
	if name == "" || (c.Build != nil && c.Build.Name == name) {
		return nil
	}
	runs := c.BinDir
	if c.Build != nil {
		runs = "the build " + c.Build.Name
	}
	return problem.BadInput("drop --build, use another --lab, or 'pgoltp cluster destroy' first",
		"the lab %s runs on %s, not --build %s", c.Lab, runs, name)
}

// Fact is one thing a run records about the installation it ran on.
type Fact struct{ Name, Value string }

// Installation is what a run on the lab's cluster records about the
// PostgreSQL it runs on: where its binaries are, how they came (system,
// download, --pg-bin, build) and, for a build, how it was built. It reads
// the lab's state only (no verification: Ready did that); nothing when the
// lab has no cluster.
func Installation(lab string) []Fact {
	b, err := os.ReadFile(statePath(lab))
	if err != nil {
		return nil
	}
	var c Cluster
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	return c.Facts()
}

// Facts are the cluster's installation as a run records it.
func (c *Cluster) Facts() []Fact {
	facts := []Fact{{"postgres bin", c.BinDir}}
	if c.Source != "" {
		facts = append(facts, Fact{"postgres from", c.Source})
	}
	if b := c.Build; b != nil {
		facts = append(facts, Fact{"build", b.Name}, Fact{"build cc", b.CCVersion}, Fact{"build cflags", b.CFLAGS},
			Fact{"build configure", strings.Join(b.Configure, " ")}, Fact{"build source", b.Source})
	}
	return facts
}
