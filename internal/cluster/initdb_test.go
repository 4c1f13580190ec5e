package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// sighting is one look at a file while something else writes it.
type sighting struct {
	mode os.FileMode
	uid  uint32
	size int64
}

// watch looks at path every few hundred microseconds until stop is closed,
// and returns what it saw.
func watch(path string, stop <-chan struct{}) <-chan []sighting {
	out := make(chan []sighting, 1)
	go func() {
		var seen []sighting
		for {
			select {
			case <-stop:
				out <- seen
				return
			default:
			}
			if fi, err := os.Lstat(path); err == nil {
				seen = append(seen, sighting{fi.Mode(), fi.Sys().(*syscall.Stat_t).Uid, fi.Size()})
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	return out
}

// The superuser password initdb reads is, while initdb runs, a 0600 file
// of the server user's (no other local user can read it), and is gone after.
func TestInitdbPasswordIsPrivateWhileInitdbRuns(t *testing.T) {
	needPostgres(t)
	u, err := resolveServerUser("")
	if err != nil {
		t.Skip(err)
	}
	lab := newLab(t)
	stop := make(chan struct{})
	seen := watch(initdbPasswordPath(lab), stop)
	upOrFatal(t, lab)
	close(stop)
	sightings := <-seen
	if len(sightings) == 0 {
		t.Fatal("the initdb password file was never seen: the test did not look while initdb ran")
	}
	withPassword := 0
	for _, s := range sightings {
		if s.mode != 0o600 {
			t.Errorf("the initdb password file had mode %v, want -rw-------", s.mode)
		}
		if s.size > 0 {
			withPassword++
			if s.uid != u.UID {
				t.Errorf("the initdb password file held the password while owned by uid %d, not the server user's %d", s.uid, u.UID)
			}
		}
	}
	if withPassword == 0 {
		t.Error("the password file was never seen with the password in it")
	}
	if _, err := os.Lstat(initdbPasswordPath(lab)); !os.IsNotExist(err) {
		t.Errorf("the initdb password file is still there: %v", err)
	}
}

// pgoltp killed with SIGKILL while initdb runs leaves a half-made data
// directory without the marker (and initdb's password file); the next Up
// recognises its own directory by the creating record and starts over.
func TestUpStartsOverAfterKillDuringInitdb(t *testing.T) {
	needPostgres(t)
	lab := newLab(t)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childUpLab+"="+lab)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	dataDir := filepath.Join(lab, "data")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Lstat(filepath.Join(dataDir, "PG_VERSION")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("initdb did not start writing the data directory")
		}
		time.Sleep(200 * time.Microsecond)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if _, err := os.Lstat(markerPath(dataDir)); err == nil || Exists(lab) {
		t.Fatal("the kill came after initdb: the test did not interrupt it")
	}
	if _, empty, _ := isEmptyDir(dataDir); empty {
		t.Fatal("the killed create left an empty data directory: nothing to recognise")
	}
	c := upOrFatal(t, lab)
	if got := query(t, c, "SELECT 'up'"); got != "up" {
		t.Errorf("query = %q", got)
	}
	for _, p := range []string{initdbPasswordPath(lab), creatingPath(lab)} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is left after a successful Up: %v", p, err)
		}
	}
}

// A creating record does not make pgoltp take a directory it did not make:
// one naming another directory leaves the user's data directory refused.
func TestCreatingRecordNamesOnlyItsOwnDirectory(t *testing.T) {
	needPostgres(t)
	lab := newLab(t)
	precious := filepath.Join(lab, "data", "precious.txt")
	if err := os.MkdirAll(filepath.Dir(precious), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(precious, []byte("a user's data"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(lab) // a directory that is not data/
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	record := []byte("made " + strconv.FormatUint(uint64(st.Dev), 10) + " " + strconv.FormatUint(st.Ino, 10) + "\n")
	if err := os.WriteFile(creatingPath(lab), record, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Up(t.Context(), Options{Lab: lab})
	wantBadInput(t, err, "did not create")
	if b, err := os.ReadFile(precious); err != nil || string(b) != "a user's data" {
		t.Fatalf("the user's file is gone or changed: %q %v", b, err)
	}
}
