package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fakeBuild puts a build of major in cache, as a download would: a bin
// directory whose postgres reports the version, and its manifest.
func fakeBuild(t *testing.T, cache string, major int) string {
	t.Helper()
	root := filepath.Join(cache, fmt.Sprintf("postgres-%d.0.0", major))
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\necho 'postgres (PostgreSQL) %d.0'\n", major)
	for _, tool := range []string{"initdb", "pg_ctl", "postgres"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeManifest(root, "not from an archive"); err != nil {
		t.Fatal(err)
	}
	return root
}

// Without --pg the server does not depend on the download cache: a newer
// major another command downloaded is not picked.
func TestDefaultServerIgnoresCachedMajors(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	t.Setenv("PGOLTP_CACHE", cache)
	system, hasSystem := DefaultBinaries()
	newer := DefaultMajor - 1 // with no PostgreSQL on the machine the default is DefaultMajor
	if hasSystem {
		if system.Major == SupportedMajors[len(SupportedMajors)-1] {
			t.Skip("the machine's PostgreSQL is the newest major: no newer one to cache")
		}
		newer = system.Major + 1
	}
	fakeBuild(t, cache, newer)
	if b, ok := Find(newer, cache); !ok || b.Source != "download" {
		t.Fatalf("the cached PostgreSQL %d is not found (%v): the test would prove nothing", newer, b)
	}
	b, err := binariesFor(context.Background(), Options{Offline: true})
	switch {
	case hasSystem && (err != nil || b.Dir != system.Dir):
		t.Errorf("default binaries = %+v, %v; want the machine's own %s", b, err, system.Dir)
	case !hasSystem && (err == nil || b.Major == newer):
		t.Errorf("default binaries = %+v, %v; want PostgreSQL %d (offline: not found)", b, err, DefaultMajor)
	}
	if b.Major == newer {
		t.Errorf("the default server is the cached PostgreSQL %d", newer)
	}
}
