package e2e_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/ossettings"
)

// tuneOSKeys are the machine's keys tune --os may write on a --dsn server
// (no huge pages: they need a restart): its dimensions and the dirty-page
// limits' other forms, which writing the bytes forms zeroes.
var tuneOSKeys = []string{"block.read_ahead_kb", "block.scheduler", "transparent_hugepage.enabled",
	"vm.dirty_bytes", "vm.dirty_background_bytes", "vm.dirty_ratio", "vm.dirty_background_ratio"}

// tuneOSArgs are a short tune --os on dsn: tiny runs, few trials.
func tuneOSArgs(dsn, lab string, budget string) []string {
	return []string{"tune", "--dsn", dsn, "--lab", lab, "--json", "--workload", "tpcb", "--scale", "1", "--clients", "2",
		"--trial", "1s", "--prewarm", "1s", "--reload=false", "--confirm", "1", "--ablation", "1", "--max-pairs", "2", "--seed", "3",
		"--budget", budget, "--os", "--allow-os"}
}

// watchOS polls the machine's keys until stop is closed and returns every
// key=value seen that differs from before.
func watchOS(m *ossettings.Machine, before ossettings.Values, stop <-chan struct{}) func() map[string]bool {
	var mu sync.Mutex
	seen := map[string]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if now, err := m.Read(tuneOSKeys...); err == nil {
				mu.Lock()
				for k, v := range now {
					if v != before[k] {
						seen[k+"="+v] = true
					}
				}
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() map[string]bool { <-done; mu.Lock(); defer mu.Unlock(); return seen }
}

// TestTuneOSAppliedAndRestored: tune --os searches the OS keys this machine
// lets it write; a trial's non-default OS value is on the machine (read in
// /proc/sys and /sys) while it runs, the result labels the OS values
// machine-wide, and at the end every value is written back and read back,
// with no record left.
func TestTuneOSAppliedAndRestored(t *testing.T) {
	o := newOSMachine(t, tuneOSKeys)
	dsn, lab := o.dsn, o.lab
	stop := make(chan struct{})
	seen := watchOS(o.m, o.before, stop)
	r := runPgoltp(t, 15*time.Minute, tuneOSArgs(dsn, lab, "3")...)
	close(stop)
	if r.code != 0 {
		t.Fatalf("tune --os: exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	var res struct {
		Trials []struct {
			Settings map[string]string `json:"settings"`
		} `json:"trials"`
		Start    map[string]string `json:"start"`
		Tried    []string          `json:"tried"`
		Restored bool              `json:"restored"`
		Notes    []string          `json:"notes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, r.stdout)
	}
	// Up front, before the search starts: the key it cannot vary here, and why.
	left, _, _ := strings.Cut(r.stderr, "search tune-")
	if !strings.Contains(left, "--os: left out of the search: hugepages: needs a restart") {
		t.Errorf("hugepages (a --dsn server: no restart) not listed up front as left out:\n%s", r.stderr)
	}
	if !strings.Contains(strings.Join(res.Tried, " "), "block.read_ahead_kb") {
		t.Errorf("the OS keys are not in the search: tried %v", res.Tried)
	}
	changedInTrial := map[string]bool{}
	for _, tr := range res.Trials {
		for _, k := range []string{"block.read_ahead_kb", "block.scheduler", "transparent_hugepage.enabled", "vm.dirty_bytes"} {
			if v, ok := tr.Settings[k]; ok && v != res.Start[k] {
				changedInTrial[k+"="+v] = true
			}
		}
	}
	if len(changedInTrial) == 0 {
		t.Fatalf("no trial set an OS value other than the start: the test proves nothing (trials %+v)", res.Trials)
	}
	observed := seen()
	found := false
	for kv := range changedInTrial {
		found = found || observed[kv]
	}
	if !found {
		t.Errorf("no trial's OS value (%v) was seen on the machine during the search (seen %v)", changedInTrial, observed)
	}
	if !res.Restored || !strings.Contains(strings.Join(res.Notes, "\n"), "machine-wide OS settings") {
		t.Errorf("the result does not say the OS settings were restored: restored %v, notes %v", res.Restored, res.Notes)
	}
	o.assertAsBefore(t, "after tune --os %v, before %v")
	o.assertNoRecord(t, "the record stays after a verified restore: %v")
}

// TestTuneOSKilledRestore: tune --os killed with SIGKILL while a trial's OS
// values are on the machine leaves them in the lab's record, and
// 'pgoltp restore' writes back every value and reads it back.
func TestTuneOSKilledRestore(t *testing.T) {
	o := newOSMachine(t, tuneOSKeys)
	dsn, lab := o.dsn, o.lab
	killOnceApplied(t, o.changed, tuneOSArgs(dsn, lab, "8")...)
	if !o.changed() {
		t.Fatal("the killed search left nothing changed: the test proves nothing")
	}
	r := runPgoltp(t, 2*time.Minute, "restore", "--dsn", dsn, "--lab", lab)
	if r.code != 0 || !strings.Contains(r.stdout, "machine-wide OS settings") {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	o.assertAsBefore(t, "after restore %v, before the search %v")
	o.assertNoRecord(t, "the record stays after a verified restore: %v")
}

// TestTuneOSRefused: tune --os is refused with one line and exit 2, before
// anything changes, without --allow-os, for a server on another machine
// and for a non-root user.
func TestTuneOSRefused(t *testing.T) {
	o := newOSMachine(t, tuneOSKeys)
	dsn, lab := o.dsn, o.lab
	args := tuneOSArgs(dsn, lab, "2")
	withoutAllow := slicesWithout(args, "--allow-os")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, withoutAllow...), "--allow-os")
	remote := tuneOSArgs("postgres://bench@192.0.2.1:5432/pgoltp", lab, "2")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, remote...), "not on this machine", "192.0.2.1")
	t.Run("not root", func(t *testing.T) {
		cmd := exec.Command(pgoltpBinary(t), tuneOSArgs(dsn, labDir(t), "2")...)
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		assertOneLineProblem(t, result{stderr: string(out), code: cmd.ProcessState.ExitCode()}, "root")
	})
	o.assertAsBefore(t, "a refused search changed the machine: %v, before %v")
	o.assertNoRecord(t, "a refused search left a record: %v")
}

func slicesWithout(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

// TestTuneOSResumeTakesTheRecordsOriginals: a search killed while a
// trial's OS values are on the machine, resumed with --resume, restores the
// originals of the lab's record at its end, not the leftovers the machine
// showed when it resumed.
func TestTuneOSResumeTakesTheRecordsOriginals(t *testing.T) {
	o := newOSMachine(t, tuneOSKeys)
	dsn, lab := o.dsn, o.lab
	killOnceApplied(t, o.changed, tuneOSArgs(dsn, lab, "8")...)
	if !o.changed() {
		t.Fatal("the killed search left nothing changed: the test proves nothing")
	}
	r := runPgoltp(t, 15*time.Minute, append(tuneOSArgs(dsn, lab, "1"), "--resume")...)
	if r.code != 0 {
		t.Fatalf("tune --os --resume: exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	o.assertAsBefore(t, "after the resumed search %v, before the search %v (the leftovers taken for originals?)")
	o.assertNoRecord(t, "the record stays after a verified restore: %v")
}

// TestTuneOSInterrupted: Ctrl-C (SIGINT) while a trial's OS values are on
// the machine ends the search with the originals written back and read
// back, and no record left.
func TestTuneOSInterrupted(t *testing.T) {
	o := newOSMachine(t, tuneOSKeys)
	dsn, lab := o.dsn, o.lab
	child := exec.Command(pgoltpBinary(t), tuneOSArgs(dsn, lab, "8")...)
	child.Dir = t.TempDir()
	var stderr strings.Builder
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	deadline := time.Now().Add(3 * time.Minute)
	for !o.changed() {
		if time.Now().After(deadline) {
			t.Fatal("the search never changed the machine")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("the search did not say it was interrupted: %s", stderr.String())
	}
	o.assertAsBefore(t, "after Ctrl-C %v, before the search %v")
	o.assertNoRecord(t, "the record stays after a verified restore: %v")
}
