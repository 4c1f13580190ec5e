package cluster

import (
	"archive/tar"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cache others may write to, or another user's, is refused before any
// binary in it runs; its mode is left alone.
func TestCacheOthersMayWriteIsRefused(t *testing.T) {
	cases := []struct {
		name  string
		setup func(dir string) error
		want  string
	}{
		{"sticky world-writable", func(dir string) error { return os.Chmod(dir, 0o777|os.ModeSticky) }, "other users may write"},
		{"group-writable", func(dir string) error { return os.Chmod(dir, 0o775) }, "other users may write"},
		{"owned by nobody", func(dir string) error { return os.Chown(dir, 65534, 65534) }, "belongs to uid 65534"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "owned by nobody" && os.Geteuid() != 0 {
				t.Skip("only root can give a directory away")
			}
			cache := filepath.Join(t.TempDir(), "cache")
			if err := os.Mkdir(cache, 0o755); err != nil {
				t.Fatal(err)
			}
			ran := filepath.Join(t.TempDir(), "ran")
			planted := fakeBuild(t, cache, 16)
			trap := "#!/bin/sh\ntouch " + ran + "\necho 'postgres (PostgreSQL) 16.0'\n"
			if err := os.WriteFile(filepath.Join(planted, "bin", "postgres"), []byte(trap), 0o755); err != nil {
				t.Fatal(err)
			}
			_ = os.Remove(filepath.Join(planted, manifestName))
			if err := writeManifest(planted, "planted"); err != nil { // a manifest does not make it trusted
				t.Fatal(err)
			}
			if err := tc.setup(cache); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Stat(cache)
			t.Setenv("PGOLTP_CACHE", cache)
			_, err := binariesFor(context.Background(), Options{Major: 16})
			wantBadInput(t, err, cache, tc.want)
			if _, ok := Find(16, cache); ok {
				t.Error("Find took a build from the refused cache")
			}
			if _, err := os.Stat(ran); err == nil {
				t.Error("a binary of the refused cache ran")
			}
			if after, _ := os.Stat(cache); after.Mode() != before.Mode() {
				t.Errorf("the cache's mode changed from %v to %v", before.Mode(), after.Mode())
			}
		})
	}
}

// A failed download leaves the mode of a cache it did not create alone.
func TestFailedDownloadKeepsCacheMode(t *testing.T) {
	repo := newFakeRepo(t)
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.Mkdir(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	pins := map[int]pinnedJar{17: {"17.11.0", strings.Repeat("ab", 32)}}
	if _, err := repo.downloader(pins).download(context.Background(), fakeArtifact, 17, cache, nil); err == nil {
		t.Fatal("the download of a jar with the wrong digest succeeded")
	}
	if fi, _ := os.Stat(cache); fi.Mode().Perm() != 0o700 {
		t.Errorf("the cache's mode changed to %v", fi.Mode())
	}
}

// runnableBuild is an archive of a build whose postgres reports 17.11.
func runnableBuild() []tarEntry {
	script := "#!/bin/sh\necho 'postgres (PostgreSQL) 17.11'\n"
	var entries []tarEntry
	for _, tool := range []string{"initdb", "pg_ctl", "postgres"} {
		entries = append(entries, tarEntry{name: "bin/" + tool, kind: tar.TypeReg, body: script})
	}
	return append(entries, tarEntry{name: "lib/libpq.so", kind: tar.TypeSymlink, link: "libpq.so.5"},
		tarEntry{name: "lib/libpq.so.5", kind: tar.TypeReg, body: "library"})
}

// A downloaded build is checked file by file each time it is used: changed,
// added or missing files make it refused, never run.
func TestCachedBuildIsVerifiedWhenUsed(t *testing.T) {
	repo := newFakeRepoOf(t, runnableBuild())
	cache := filepath.Join(t.TempDir(), "cache")
	d := repo.downloader(map[int]pinnedJar{17: {"17.11.0", digest(repo.jar)}})
	b, err := d.download(context.Background(), fakeArtifact, 17, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Find(17, cache); !ok || verifyBinDir(b.Dir) != nil {
		t.Fatal("the verified download is not found, or not verified")
	}
	root := filepath.Dir(b.Dir)
	tamper := []struct {
		name string
		do   func() error
		undo func() error
	}{
		{"changed", func() error { return appendTo(filepath.Join(root, "bin", "initdb"), "touch /tmp/pwned\n") },
			func() error {
				return os.WriteFile(filepath.Join(root, "bin", "initdb"), []byte(runnableBuild()[0].body), 0o755)
			}},
		{"added", func() error { return os.WriteFile(filepath.Join(root, "lib", "evil.so"), nil, 0o644) },
			func() error { return os.Remove(filepath.Join(root, "lib", "evil.so")) }},
		{"relinked", func() error { return relink(filepath.Join(root, "lib", "libpq.so"), "/tmp/evil.so") },
			func() error { return relink(filepath.Join(root, "lib", "libpq.so"), "libpq.so.5") }},
	}
	for _, tc := range tamper {
		if err := tc.do(); err != nil {
			t.Fatal(err)
		}
		if _, ok := Find(17, cache); ok {
			t.Errorf("%s: Find took the tampered build", tc.name)
		}
		if _, err := d.download(context.Background(), fakeArtifact, 17, cache, nil); err == nil || !strings.Contains(err.Error(), "changed after pgoltp unpacked it") {
			t.Errorf("%s: download used the tampered build: %v", tc.name, err)
		}
		wantBadInput(t, verifyBinDir(b.Dir), "changed after pgoltp unpacked it")
		if err := tc.undo(); err != nil {
			t.Fatal(err)
		}
		if err := verifyBinDir(b.Dir); err != nil {
			t.Fatalf("%s undone: %v", tc.name, err)
		}
	}
	// Open refuses a lab whose cluster runs a changed build.
	if err := appendTo(filepath.Join(root, "bin", "pg_ctl"), "# changed\n"); err != nil {
		t.Fatal(err)
	}
	lab := t.TempDir()
	state, _ := json.Marshal(Cluster{BinDir: b.Dir, Major: 17})
	if err := os.WriteFile(statePath(lab), state, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(lab)
	wantBadInput(t, err, "changed after pgoltp unpacked it")
}

// A build in the cache that pgoltp did not unpack (no manifest: copied
// there, or left by an older pgoltp) is not run but downloaded again.
func TestBuildWithoutManifestIsReplaced(t *testing.T) {
	repo := newFakeRepoOf(t, runnableBuild())
	cache := filepath.Join(t.TempDir(), "cache")
	planted := fakeBuild(t, cache, 17)
	if err := os.Rename(planted, filepath.Join(cache, "postgres-17.11.0")); err != nil {
		t.Fatal(err)
	}
	planted = filepath.Join(cache, "postgres-17.11.0")
	if err := os.Remove(filepath.Join(planted, manifestName)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(planted, "bin", "extra"), []byte("planted"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := Find(17, cache); ok {
		t.Error("Find took a build without a manifest")
	}
	d := repo.downloader(map[int]pinnedJar{17: {"17.11.0", digest(repo.jar)}})
	b, err := d.download(context.Background(), fakeArtifact, 17, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !repo.asked(".jar") {
		t.Error("the build without a manifest was used instead of downloaded")
	}
	if _, err := os.Stat(filepath.Join(b.Dir, "extra")); !os.IsNotExist(err) {
		t.Error("the planted file is still in the build")
	}
	if err := verifyTree(filepath.Dir(b.Dir)); err != nil {
		t.Errorf("the new build does not verify: %v", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 1 {
		t.Errorf("the cache holds %v, want only the build", entries)
	}
}

func appendTo(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func relink(path, target string) error {
	if err := os.Remove(path); err != nil {
		return err
	}
	return os.Symlink(target, path)
}
