package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildCache is the PostgreSQL cache of the build tests: one that lasts
// between runs (the source is fetched once, the real build made once), that
// the server user can reach when the tests run as root;
// PGOLTP_TEST_BUILD_CACHE names another (one holding the build already).
// run runs pgoltp with PGOLTP_CACHE set to it.
func buildCache(t *testing.T) (cache string, run func(time.Duration, ...string) result) {
	t.Helper()
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("pgoltp build needs Debian's apt-get")
	}
	dir := os.Getenv("PGOLTP_TEST_BUILD_CACHE")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "pgoltp-test-builds")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, func(timeout time.Duration, args ...string) result {
		t.Helper()
		return runPgoltpEnv(t, []string{"PGOLTP_CACHE=" + dir}, timeout, args...)
	}
}

// TestBuildBadInput: an unknown compiler, a missing name and a configure
// option configure does not take (an unknown one, which configure --help
// does not list and configure itself only warns about, and a bad value,
// which configure refuses) each give one line and exit 2, the last two
// naming the build's log; nothing is installed and nothing is left of the
// attempt.
func TestBuildBadInput(t *testing.T) {
	t.Parallel()
	cache, run := buildCache(t)
	assertOneLineProblem(t, run(time.Minute, "build", "--name", "x", "--cc", "icc"), "--cc", "gcc or clang")
	assertOneLineProblem(t, run(time.Minute, "build", "--cc", "gcc"), "--name")
	assertOneLineProblem(t, run(time.Minute, "build", "--name", "Bad/Name"), "--name")
	// What a killed build left (its process gone) is removed by the next.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(cache, "builds", fmt.Sprintf(".partial-%d-build-killed-1", dead.Process.Pid))
	if err := os.MkdirAll(filepath.Join(leftover, "obj"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, configure := range map[string]string{"typo": "--with-nonsense-xyz", "badvalue": "--with-ssl=bogus"} {
		r := run(20*time.Minute, "build", "--name", name, "--configure", configure)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		last := lines[len(lines)-1]
		log := filepath.Join(cache, "builds", name+".log")
		if r.code != 2 || !strings.HasPrefix(last, "pgoltp: ") || !strings.Contains(last, log) || !strings.Contains(last, "configure failed") {
			t.Errorf("build --configure %s: exit %d, last line %q; want exit 2 and one line naming configure and %s", configure, r.code, last, log)
		}
		for _, l := range lines[:len(lines)-1] {
			if !strings.HasPrefix(l, "== ") {
				t.Errorf("build --configure %s: a line besides progress and the problem: %q", configure, l)
			}
		}
		if _, err := os.Stat(log); err != nil {
			t.Errorf("the log of the failed build: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(cache, "builds", name)); err == nil {
			t.Errorf("the failed build %s was installed", name)
		}
		if left, _ := filepath.Glob(filepath.Join(cache, "builds", ".partial-*")); len(left) > 0 {
			t.Errorf("the failed build left %v", left)
		}
	}
	if r := run(time.Minute, "build", "--list"); r.code != 0 || strings.Contains(r.stdout, "typo") {
		t.Errorf("build --list after failed builds: exit %d\n%s", r.code, r.stdout)
	}
}

// TestMissingBuild: 'cluster up --build' and a plan's builds: naming a
// build the cache does not hold are refused with one line and exit 2,
// before any cluster is made.
func TestMissingBuild(t *testing.T) {
	t.Parallel()
	_, run := buildCache(t)
	lab := labDir(t)
	assertOneLineProblem(t, run(time.Minute, "cluster", "up", "--lab", lab, "--build", "nosuch"), "nosuch", "pgoltp build --name nosuch")
	assertOneLineProblem(t, run(time.Minute, "cluster", "up", "--lab", lab, "--build", "nosuch", "--pg-bin", "/usr/bin"), "--build", "--pg-bin")
	plan := filepath.Join(t.TempDir(), "builds.yaml")
	if err := os.WriteFile(plan, []byte("workload: {kind: tpcc, scale: 1, clients: 2}\nduration: 2s\nbuilds: [nosuch, other]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertOneLineProblem(t, run(time.Minute, "--lab", lab, "experiment", plan), "builds", "nosuch", "pgoltp build --name nosuch")
	if _, err := os.Stat(filepath.Join(lab, "build-nosuch")); err == nil {
		t.Error("a cluster's lab was made for a missing build")
	}
}

// TestPgBinRecorded: a run on a cluster of --pg-bin (the machine's own
// PostgreSQL 15) records the installation it ran on.
func TestPgBinRecorded(t *testing.T) {
	t.Parallel()
	const sys = "/usr/lib/postgresql/15/bin"
	if _, err := os.Stat(filepath.Join(sys, "postgres")); err != nil {
		t.Skip("no PostgreSQL 15 of Debian's on this machine")
	}
	lab := labDir(t)
	if r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab, "--pg-bin", sys); r.code != 0 {
		t.Fatalf("cluster up --pg-bin: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	for _, args := range [][]string{{"tpcb", "load", "-s", "1"}, {"tpcb", "run", "-c", "2", "-T", "2"}} {
		if r := runPgoltp(t, 5*time.Minute, append([]string{"--lab", lab}, args...)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	r := runPgoltp(t, time.Minute, "--lab", lab, "report", "last", "--format", "json")
	for _, want := range []string{"postgres bin", sys, "postgres from", "--pg-bin"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the stored run does not record %q:\n%.2000s", want, r.stdout)
		}
	}
}

// TestRealBuild (PGOLTP_TEST_BUILD=1: it compiles PostgreSQL, minutes): a
// build with -O3 -march=native is made, listed, reused with the same
// options and refused with others; a cluster runs on it and a TPC-C run
// records the build, which the report shows.
func TestRealBuild(t *testing.T) {
	if os.Getenv("PGOLTP_TEST_BUILD") != "1" {
		t.Skip("set PGOLTP_TEST_BUILD=1 to compile PostgreSQL (minutes)")
	}
	_, run := buildCache(t)
	args := []string{"build", "--name", "o3-native", "--cflags", "-O3 -march=native"}
	if r := run(90*time.Minute, args...); r.code != 0 {
		t.Fatalf("build: exit %d: %s", r.code, r.stderr)
	}
	if r := run(time.Minute, args...); r.code != 0 || !strings.Contains(r.stderr, "reused") {
		t.Errorf("the same build again: exit %d, want it reused: %s", r.code, r.stderr)
	}
	assertOneLineProblem(t, run(time.Minute, "build", "--name", "o3-native", "--cc", "clang"), "o3-native", "other options")
	if r := run(time.Minute, "build", "--list"); !strings.Contains(r.stdout, "o3-native") || !strings.Contains(r.stdout, "-O3 -march=native") {
		t.Errorf("build --list:\n%s", r.stdout)
	}
	lab := labDir(t)
	if r := run(5*time.Minute, "cluster", "up", "--lab", lab, "--build", "o3-native"); r.code != 0 || !strings.Contains(r.stdout, "-O3 -march=native") {
		t.Fatalf("cluster up --build: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	t.Cleanup(func() { run(time.Minute, "cluster", "destroy", "--lab", lab) })
	for _, a := range [][]string{{"tpcc", "load", "--warehouses", "1"}, {"tpcc", "run", "--warehouses", "1", "--duration", "10s", "--mode", "nowait", "--terminals", "2"}} {
		if r := run(10*time.Minute, append([]string{"--lab", lab}, a...)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", a, r.code, r.stderr)
		}
	}
	html := filepath.Join(t.TempDir(), "r.html")
	run(time.Minute, "--lab", lab, "report", "last", "-o", html)
	page, _ := os.ReadFile(html)
	r := run(time.Minute, "--lab", lab, "report", "last", "--format", "json")
	for _, doc := range []string{r.stdout, string(page)} {
		for _, want := range []string{"build cflags", "-O3 -march=native", "build cc", "gcc"} {
			if !strings.Contains(doc, want) {
				t.Errorf("the stored run or its report does not show %q", want)
			}
		}
	}
}

// TestBuildsPlan (PGOLTP_TEST_BUILD=1): a plan with builds: [default,
// o3-native] runs TPC-C on a cluster of each (the builds made first, or
// reused) and gives each build's throughput against default, by name.
func TestBuildsPlan(t *testing.T) {
	if os.Getenv("PGOLTP_TEST_BUILD") != "1" {
		t.Skip("set PGOLTP_TEST_BUILD=1 to compile PostgreSQL (minutes)")
	}
	_, run := buildCache(t)
	for _, args := range [][]string{{"--name", "default"}, {"--name", "o3-native", "--cflags", "-O3 -march=native"}} {
		if r := run(90*time.Minute, append([]string{"build"}, args...)...); r.code != 0 {
			t.Fatalf("build %v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	lab := labDir(t)
	if err := os.MkdirAll(lab, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(lab, "builds.yaml")
	if err := os.WriteFile(plan, []byte("workload: {kind: tpcc, scale: 1, clients: 2}\nduration: 5s\nrepetitions: 2\nbuilds: [default, o3-native]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, b := range []string{"default", "o3-native"} {
			run(time.Minute, "cluster", "destroy", "--lab", filepath.Join(lab, "build-"+b))
		}
	})
	r := run(20*time.Minute, "--lab", lab, "experiment", plan)
	if r.code != 0 {
		t.Fatalf("experiment builds plan: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"PostgreSQL builds compared", "build default (3 runs)", "build o3-native (2 runs)", "throughput against build default", "build o3-native ", "(paired, 2 pairs"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}
