package cluster

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBuiltBinaries: a build in the cache's builds/ (here the machine's own
// server programs, sealed as 'pgoltp build' seals its builds) is listed and
// runs; --build with another major, or a build changed after it was sealed,
// or a name the cache lacks, is refused as bad input.
func TestBuiltBinaries(t *testing.T) {
	sys, ok := DefaultBinaries()
	if !ok {
		t.Skip("no PostgreSQL installed on this machine")
	}
	cache := t.TempDir()
	t.Setenv("PGOLTP_CACHE", cache)
	root := filepath.Join(cache, "builds", ".x-1")
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"initdb", "pg_ctl", "postgres"} {
		b, err := os.ReadFile(filepath.Join(sys.Dir, tool))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "bin", tool), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := SealBuild(root, Build{Name: "x", CC: "gcc", CFLAGS: "-O3", Version: sys.Version}); err != nil {
		t.Fatal(err)
	}
	if builds, _ := ListBuilds(cache); len(builds) != 0 {
		t.Errorf("a build under way (.x-1) is listed: %+v", builds)
	}
	if err := os.Rename(root, BuildDir(cache, "x")); err != nil {
		t.Fatal(err)
	}
	bins, rec, err := builtBinaries("x", 0)
	if err != nil || bins.Major != sys.Major || rec.CFLAGS != "-O3" || bins.Source != "build" {
		t.Fatalf("builtBinaries: %+v %+v %v", bins, rec, err)
	}
	if builds, _ := ListBuilds(cache); len(builds) != 1 || builds[0].Name != "x" {
		t.Errorf("ListBuilds: %+v", builds)
	}
	wantBadInput(t, func() error { _, _, err := builtBinaries("x", sys.Major-1); return err }(), "not")
	wantBadInput(t, func() error { _, _, err := builtBinaries("nosuch", 0); return err }(), "pgoltp build --name nosuch")
	if err := os.WriteFile(filepath.Join(BuildDir(cache, "x"), "bin", "pg_ctl"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantBadInput(t, func() error { _, _, err := builtBinaries("x", 0); return err }(), "changed after pgoltp built it")
}
