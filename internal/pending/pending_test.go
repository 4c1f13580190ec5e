package pending

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// TestGuardLifecycle: Begin writes a 0600 record of the originals without
// secrets or password; a second command on the server is refused (exit 2,
// naming 'pgoltp restore'); a resumed one keeps the first originals instead
// of the leftovers it is shown; Done removes the record.
func TestGuardLifecycle(t *testing.T) {
	lab := t.TempDir()
	g, err := ForDSN(lab, "postgres://bench:s3cret@db1:6543/pgoltp", "experiment")
	if err != nil {
		t.Fatal(err)
	}
	orig := map[string]settings.Live{
		"commit_delay":     {Name: "commit_delay", Setting: "0"},
		"primary_conninfo": {Name: "primary_conninfo", Setting: "host=x password=hunter2"},
	}
	if _, err := g.Begin(orig, []string{"commit_delay", "primary_conninfo"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(Path(lab, g.Key))
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(Path(lab, g.Key)); fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v, want 0600", fi.Mode().Perm())
	}
	if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), "db1:6543") {
		t.Fatalf("record holds a secret or lacks the server:\n%s", b)
	}

	other, _ := ForDSN(lab, "postgres://bench@db1:6543/other", "experiment")
	leftovers := map[string]settings.Live{"commit_delay": {Name: "commit_delay", Setting: "77"}}
	if _, err := other.Begin(leftovers, []string{"commit_delay"}); problem.ExitCode(err) != 2 || !strings.Contains(err.Error(), "commit_delay") {
		t.Fatalf("a second command on the server: %v, want refused naming the setting", err)
	}
	if err := other.Abandon(); err != nil {
		t.Fatal(err)
	}
	if rec, _ := Find(lab, g.Key); rec == nil {
		t.Fatal("Abandon of a refused command removed the pending record")
	}
	other.Resume = true
	back, err := other.Begin(leftovers, []string{"commit_delay"})
	if err != nil || back["commit_delay"].Setting != "0" {
		t.Fatalf("resumed: %v, commit_delay %q, want the recorded original 0", err, back["commit_delay"].Setting)
	}
	if err := other.Done(); err != nil {
		t.Fatal(err)
	}
	if all, err := All(lab); err != nil || len(all) != 0 {
		t.Fatalf("records after Done: %v %v", all, err)
	}
}

// TestRunningCommandIsNotALeftover: the record of a command that still runs
// (a --dsn experiment holds no lab lock) is said to be in progress, and
// another command waits for it instead of restoring under it.
func TestRunningCommandIsNotALeftover(t *testing.T) {
	lab := t.TempDir()
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	rec := &Record{Key: "db1:5432", Server: "postgres://u@db1:5432/x", Command: "experiment", PID: sleeper.Process.Pid,
		Settings: map[string]settings.Live{"commit_delay": {Name: "commit_delay", Setting: "0"}}}
	if err := Write(lab, rec); err != nil {
		t.Fatal(err)
	}
	g, _ := ForDSN(lab, "postgres://u@db1:5432/y", "tune")
	g.Resume = true
	if _, err := g.Begin(nil, []string{"commit_delay"}); err == nil || !strings.Contains(err.Error(), "right now") {
		t.Fatalf("a command while another changes the server: %v", err)
	}
	_ = sleeper.Process.Kill()
	_ = sleeper.Wait()
	if rec.Running() || !strings.Contains(rec.Describe(), "did not restore") {
		t.Fatalf("after its end the record is a leftover: %s", rec.Describe())
	}
}

// TestGuardKeepsOS: OS originals go into the same record as the settings,
// fsynced before the change; a key kept once keeps its first original; the
// record's description names them as machine-wide; another command is
// refused while the record is pending.
func TestGuardKeepsOS(t *testing.T) {
	lab := t.TempDir()
	g, err := ForCluster(lab, "experiment")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Begin(map[string]settings.Live{"commit_delay": {Name: "commit_delay", Setting: "0"}}, []string{"commit_delay"}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.BeginOS(map[string]string{"vm.swappiness": "60"}, "/lab/data", ""); err != nil {
		t.Fatal(err)
	}
	back, err := g.BeginOS(map[string]string{"vm.swappiness": "10", "block.scheduler": "mq-deadline"}, "/lab/data", "")
	if err != nil || back["vm.swappiness"] != "60" || back["block.scheduler"] != "mq-deadline" {
		t.Fatalf("BeginOS again: %v %v, want the first original of vm.swappiness kept", back, err)
	}
	rec, err := Find(g.Lab, g.Key)
	if err != nil || rec == nil {
		t.Fatalf("record: %v %v", rec, err)
	}
	if rec.OSDataDir != "/lab/data" || len(rec.Settings) != 1 || !strings.Contains(rec.Describe(), "machine-wide OS settings block.scheduler, vm.swappiness") {
		t.Fatalf("record %+v: %s", rec, rec.Describe())
	}
	rec.PID = 0 // as after a kill -9
	if err := Write(g.Lab, rec); err != nil {
		t.Fatal(err)
	}
	next, _ := ForCluster(lab, "experiment")
	if _, err := next.BeginOS(map[string]string{"vm.swappiness": "10"}, "", ""); problem.ExitCode(err) != 2 || !strings.Contains(err.Error(), "vm.swappiness") {
		t.Fatalf("another command over a pending OS record: %v", err)
	}
	// Another server of the same lab, and another lab that last changed
	// the OS: the machine's values are the leftovers of that record.
	byDSN, _ := ForDSN(lab, "postgres://u@127.0.0.1:5432/x", "experiment")
	if _, err := byDSN.BeginOS(map[string]string{"vm.swappiness": "10"}, "", ""); problem.ExitCode(err) != 2 || !strings.Contains(err.Error(), "machine-wide") {
		t.Fatalf("an OS step on another server of the lab over a pending OS record: %v", err)
	}
	otherLab, _ := ForCluster(t.TempDir(), "experiment")
	if _, err := otherLab.BeginOS(map[string]string{"vm.swappiness": "10"}, "", lab); problem.ExitCode(err) != 2 || !strings.Contains(err.Error(), "pgoltp restore --lab "+g.Lab) {
		t.Fatalf("an OS step in another lab over the last lab's pending OS record: %v", err)
	}
	if _, err := otherLab.BeginOS(map[string]string{"vm.swappiness": "10"}, "", ""); err != nil {
		t.Fatalf("an OS step in another lab, no last lab known: %v", err)
	}
}
