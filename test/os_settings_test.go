package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// osKeys are the allow-listed keys these tests change (all writable on a
// Linux machine run as root, outside a container).
var osKeys = []string{"vm.swappiness", "vm.dirty_bytes", "vm.dirty_ratio", "transparent_hugepage.defrag", "block.read_ahead_kb", "block.scheduler"}

// otherScheduler is a scheduler the disk offers that it does not use now.
func otherScheduler(t *testing.T, m *ossettings.Machine, now string) string {
	b, err := os.ReadFile(m.Where("block.scheduler"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range strings.Fields(string(b)) {
		if w = strings.Trim(w, "[]"); w != now {
			return w
		}
	}
	t.Skip("the disk offers one scheduler only")
	return ""
}

func writePlan(t *testing.T, text string) string {
	t.Helper()
	// Where the unprivileged user of TestOSStepsRefused can read it.
	p := filepath.Join(filepath.Dir(labDir(t)), "plan.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOSStepAppliedAndRestored: a step's os: is applied machine-wide, read
// back in every run, labelled machine-wide in the report, and the machine's
// values are written back and read back at the end, with no record left.
func TestOSStepAppliedAndRestored(t *testing.T) {
	o := newOSMachine(t, osKeys)
	dsn, lab := o.dsn, o.lab
	sched := otherScheduler(t, o.m, o.before["block.scheduler"])
	plan := writePlan(t, `
name: os
workload: {kind: ledger, clients: 2}
duration: 2s
repetitions: 2
steps:
  - name: writeback
    os: {vm.swappiness: 13, vm.dirty_bytes: 123731968, block.read_ahead_kb: 1024, block.scheduler: `+sched+`, transparent_hugepage.defrag: never}
`)
	r := runPgoltp(t, 5*time.Minute, "experiment", plan, "--dsn", dsn, "--lab", lab, "--allow-os")
	if r.code != 0 {
		t.Fatalf("experiment: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"vm.swappiness=13 [machine-wide]", "block.scheduler=" + sched + " [machine-wide]", "(machine-wide: ", "restored and read back"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "NOT IN EFFECT") {
		t.Errorf("OS settings not in effect during a run:\n%s", r.stdout)
	}
	o.assertAsBefore(t, "after the experiment %v, before %v")
	o.assertNoRecord(t, "the record stays after a verified restore: %v")
}

// TestKilledOSStepRestore: an experiment killed with SIGKILL while its
// step's OS settings are live leaves them in the lab's restore record;
// every command says so; 'pgoltp restore' writes back every value and
// reads it back.
func TestKilledOSStepRestore(t *testing.T) {
	o := newOSMachine(t, osKeys)
	dsn, lab := o.dsn, o.lab
	plan := writePlan(t, `
name: killed os
workload: {kind: ledger, clients: 2}
duration: 10s
repetitions: 2
steps:
  - name: writeback
    os: {vm.swappiness: 17, vm.dirty_bytes: 123731968, block.read_ahead_kb: 1024, transparent_hugepage.defrag: never}
`)
	killOnceApplied(t, func() bool { v, _ := o.m.Read("vm.swappiness"); return v["vm.swappiness"] == "17" },
		"experiment", plan, "--dsn", dsn, "--lab", lab, "--allow-os")
	if !o.changed() {
		t.Fatal("the killed experiment left nothing changed: the test proves nothing")
	}
	if r := runPgoltp(t, time.Minute, "advise", "--dsn", dsn, "--lab", lab); !strings.Contains(r.stderr, "machine-wide OS settings") || !strings.Contains(r.stderr, "vm.swappiness") {
		t.Errorf("advise did not mention the pending OS record: %q", r.stderr)
	}
	// From another lab too: the machine's lock names the lab of the record.
	other := labDir(t)
	if r := runPgoltp(t, time.Minute, "advise", "--dsn", dsn, "--lab", other); !strings.Contains(r.stderr, "pgoltp restore --lab "+lab) {
		t.Errorf("advise in another lab did not point to the pending OS record in %s: %q", lab, r.stderr)
	}
	// An OS step from there would take the leftovers for originals: refused.
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "experiment", plan, "--dsn", dsn, "--lab", other, "--allow-os"),
		"pgoltp restore --lab "+lab, "vm.swappiness")
	if left, _ := filepath.Glob(filepath.Join(other, "restore", "*.json")); len(left) != 0 {
		t.Errorf("the refused experiment left a record in its lab: %v", left)
	}
	r := runPgoltp(t, 2*time.Minute, "restore", "--dsn", dsn, "--lab", lab)
	if r.code != 0 || !strings.Contains(r.stdout, "machine-wide OS settings") {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	o.assertAsBefore(t, "after restore %v, before the experiment %v")
	o.assertNoRecord(t, "the record stays after a verified restore: %v")
}

// TestOSStepsRefused: an OS step is refused with one line and exit 2,
// before anything changes, without --allow-os, for a non-root user, for a
// server on another machine, for a key absent on this kernel and for a key
// read-only here (a mount namespace with /proc/sys read-only, as in a
// container).
func TestOSStepsRefused(t *testing.T) {
	o := newOSMachine(t, osKeys)
	dsn, lab := o.dsn, o.lab
	plan := writePlan(t, `
name: refused
workload: {kind: ledger, clients: 2}
duration: 2s
steps:
  - {name: swap, os: {vm.swappiness: 13}}
`)
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "experiment", plan, "--dsn", dsn, "--lab", lab), "--allow-os")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "experiment", plan, "--dsn", "postgres://bench@192.0.2.1:5432/pgoltp", "--lab", lab, "--allow-os"),
		"not on this machine", "192.0.2.1")

	notAllowed := writePlan(t, "name: net\nworkload: {kind: ledger}\nduration: 2s\nsteps:\n  - {name: forward, os: {net.ipv4.ip_forward: 1}}\n")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "experiment", notAllowed, "--dsn", dsn, "--lab", lab, "--allow-os"),
		"net.ipv4.ip_forward", "not an OS setting pgoltp changes", "vm.dirty_bytes")

	t.Run("not root", func(t *testing.T) {
		cmd := exec.Command(pgoltpBinary(t), "experiment", plan, "--dsn", dsn, "--lab", labDir(t), "--allow-os")
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		assertOneLineProblem(t, result{stderr: string(out), code: cmd.ProcessState.ExitCode()}, "root")
	})

	if _, err := os.Stat("/proc/sys/kernel/sched_migration_cost_ns"); err != nil {
		absent := writePlan(t, "name: absent\nworkload: {kind: ledger}\nduration: 2s\nsteps:\n  - {name: migration, os: {kernel.sched_migration_cost_ns: 5000000}}\n")
		assertOneLineProblem(t, runPgoltp(t, time.Minute, "experiment", absent, "--dsn", dsn, "--lab", lab, "--allow-os"),
			"kernel.sched_migration_cost_ns", "does not exist")
	}

	t.Run("read-only in a container", func(t *testing.T) {
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("no unshare")
		}
		script := `mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && exec "$@"`
		cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
			pgoltpBinary(t), "experiment", plan, "--dsn", dsn, "--lab", lab, "--allow-os")
		cmd.Dir = t.TempDir()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		_ = cmd.Run()
		assertOneLineProblem(t, result{stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}, "vm.swappiness", "not writable")
	})
	o.assertAsBefore(t, "a refused experiment changed the machine: %v, before %v")
	o.assertNoRecord(t, "a refused experiment left a record: %v")
}

// TestFromDoctor: doctor prints its OS recommendations as a plan whose
// steps each carry an os: block, and 'experiment --from-doctor' measures
// them, one step each, with the workload of the plan it is given, and puts
// the machine back.
func TestFromDoctor(t *testing.T) {
	o := newOSMachine(t, osKeys)
	dsn, lab := o.dsn, o.lab
	r := runPgoltp(t, time.Minute, "doctor", "--dsn", dsn, "--lab", lab, "--format", "os-plan")
	if r.code == 1 && strings.Contains(r.stderr, "recommends no OS change") {
		t.Skip("doctor recommends nothing for this machine's OS")
	}
	if r.code != 0 {
		t.Fatalf("doctor --format os-plan: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	plan, err := experiment.ParsePlan(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatalf("doctor's os-plan is not a plan: %v\n%s", err, r.stdout)
	}
	for _, s := range plan.Steps {
		if len(s.OS) == 0 || len(s.Settings) > 0 && s.Settings["huge_pages"] == "" {
			t.Errorf("step %q is not an OS step: %+v", s.Name, s)
		}
	}
	header := writePlan(t, `
name: doctor, quickly
workload: {kind: ledger, clients: 2}
duration: 2s
repetitions: 2
steps:
  - {name: replaced, settings: {commit_delay: 10}}
`)
	// A header without steps is what a user writes: doctor gives the steps.
	noSteps := writePlan(t, `
name: doctor, quickly
workload: {kind: ledger, clients: 2}
duration: 1s
repetitions: 2
`)
	r = runPgoltp(t, 10*time.Minute, "experiment", "--from-doctor", noSteps, "--dsn", dsn, "--lab", lab, "--allow-os")
	if r.code != 0 {
		t.Fatalf("experiment --from-doctor with a header without steps: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runPgoltp(t, 10*time.Minute, "experiment", "--from-doctor", header, "--dsn", dsn, "--lab", lab, "--allow-os")
	if r.code != 0 {
		t.Fatalf("experiment --from-doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, s := range plan.Steps {
		if !strings.Contains(r.stdout, fmt.Sprintf("%q", s.Name)) {
			t.Errorf("the report lacks doctor's step %q:\n%s", s.Name, r.stdout)
		}
	}
	if strings.Contains(r.stdout, `"replaced"`) || !strings.Contains(r.stdout, "[machine-wide]") {
		t.Errorf("the report should hold doctor's steps only, labelled machine-wide:\n%s", r.stdout)
	}
	o.assertAsBefore(t, "after the experiment %v, before %v")
}

// TestHugepagesAuto: on the lab's cluster, hugepages: auto reserves
// vm.nr_hugepages for shared_buffers and runs the step with huge_pages=on
// (a restart), in effect in every run; at the end the reservation and
// huge_pages are back as they were.
func TestHugepagesAuto(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changes kernel settings: run as root")
	}
	if os.Getenv("PGOLTP_TEST_ALONE") == "" {
		// While huge pages are reserved, any PostgreSQL that starts on the
		// machine with huge_pages=try (the default) takes them: the other
		// test packages' servers would take this test's. scripts/test runs
		// it alone, after everything else.
		t.Skip("reserves huge pages machine-wide: run alone with PGOLTP_TEST_ALONE=1 (scripts/test does)")
	}
	pgtest.MachineWide(t)
	m := &ossettings.Machine{}
	before, err := m.Read(ossettings.NrHugepages)
	if err != nil || before[ossettings.NrHugepages] != "0" {
		t.Skipf("huge pages already reserved here (%v %v): the test would not see its own", before, err)
	}
	t.Cleanup(func() { _ = m.Restore(before) })
	lab := labDir(t)
	if r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab); r.code != 0 {
		t.Fatalf("cluster up: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	plan := writePlan(t, `
name: huge pages
workload: {kind: ledger, clients: 2}
duration: 2s
repetitions: 2
steps:
  - {name: huge, os: {hugepages: auto}}
`)
	r := runPgoltp(t, 10*time.Minute, "experiment", plan, "--lab", lab, "--allow-os")
	if r.code != 0 {
		t.Fatalf("experiment: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"huge_pages=on", "hugepages=auto [machine-wide]", "restarted", "vm.nr_hugepages"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "NOT IN EFFECT") {
		t.Errorf("huge pages not in effect:\n%s", r.stdout)
	}
	if now, _ := m.Read(ossettings.NrHugepages); now[ossettings.NrHugepages] != "0" {
		t.Errorf("vm.nr_hugepages %s after the experiment, was 0", now[ossettings.NrHugepages])
	}
	c, err := cluster.Open(lab)
	if err != nil {
		t.Fatal(err)
	}
	if hp := showSettings(t, c.DSN("postgres"), []string{"huge_pages"})["huge_pages"]; hp == "on" {
		t.Errorf("huge_pages is still on after the experiment")
	}
}
