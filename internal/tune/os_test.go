package tune

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/search"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/tune/record"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// readAheadWorkload runs at 1000 tps while the disk's read-ahead is fast,
// and at 600 otherwise: what it measures is the machine's value in /sys.
type readAheadWorkload struct {
	machine *ossettings.Machine
	fast    string
}

func (w *readAheadWorkload) Name() string                  { return "read-ahead" }
func (w *readAheadWorkload) Prepare(context.Context) error { return nil }
func (w *readAheadWorkload) Run(context.Context, time.Duration) (workload.Measurement, error) {
	now, err := w.machine.Read("block.read_ahead_kb")
	if err != nil {
		return workload.Measurement{}, err
	}
	level := 600.0
	if now["block.read_ahead_kb"] == w.fast {
		level = 1000
	}
	m := workload.Measurement{Transactions: 1e11, Elapsed: time.Duration(1e11 / level * float64(time.Second)), PerSecond: make([]float64, 30)}
	for i := range m.PerSecond {
		m.PerSecond[i] = level * (1 + 0.01*math.Sin(float64(i)))
	}
	return m, nil
}

// TestAblationOfAnOSSetting: the ablation treats an OS dimension as a
// setting: "the best without block.read_ahead_kb" puts the machine's
// original read-ahead back for its runs (the workload reads it in /sys),
// measures what that costs, and keeps the OS value; at the end the
// originals are back.
func TestAblationOfAnOSSetting(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changes the disk's read-ahead machine-wide: run as root")
	}
	pgtest.MachineWide(t)
	dataDir := t.TempDir()
	search, err := ossettings.PrepareSearch(ossettings.SearchOptions{Options: ossettings.Options{Allow: true}},
		map[string]settings.Live{"data_directory": {Setting: dataDir}})
	if err != nil {
		t.Skipf("no OS dimension here: %v", err)
	}
	var ra ossettings.SearchDim
	for _, d := range search.Dims {
		if d.Name == "block.read_ahead_kb" {
			ra = d
		}
	}
	if ra.Name == "" {
		t.Skipf("read-ahead is not writable here: %v", search.Refused)
	}
	if err := search.Keep(nil); err != nil {
		t.Fatal(err)
	}
	originals := search.Originals()
	machine := &ossettings.Machine{DataDir: dataDir}
	t.Cleanup(func() {
		if ok, notes := search.Restore(nil); !ok {
			t.Errorf("not restored: %v", notes)
		}
		if now, _ := machine.Read(originals.Sorted()...); fmt.Sprint(now) != fmt.Sprint(originals) {
			t.Errorf("after the search %v, before %v", now, originals)
		}
	})
	fast := ra.Choices[1]
	server := &simServer{}
	s := &session{Tuner: &Tuner{Server: server, Workload: &readAheadWorkload{machine: machine, fast: fast}, OS: search},
		ctx: context.Background(), outer: context.Background(), space: &Space{}, state: &State{ID: "sim"},
		startSet: map[string]string{"block.read_ahead_kb": ra.Start}}
	out, err := s.ablate(map[string]string{"block.read_ahead_kb": fast})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !out[0].Measured || !out[0].Kept || !(out[0].Removal.Percent < -30) {
		t.Fatalf("ablation %+v: want block.read_ahead_kb measured as worth about +67%% and kept", out)
	}
	if len(server.applied) != 0 {
		t.Errorf("the OS value reached the server's settings: %v", server.applied)
	}
}

// TestImportanceAndOutputOfOSDimensions: an OS dimension is ranked like a
// setting, the best configuration labels it machine-wide, and --format conf
// and sql give the OS part as a plan's os: block in comments (dirty bytes
// with its background limit), not as server settings.
func TestImportanceAndOutputOfOSDimensions(t *testing.T) {
	base := &Space{dims: []dim{{name: "work_mem", integer: true, lo: 1, hi: 2}}}
	var err error
	if base.Space, err = search.NewSpace(search.Int("work_mem", 1, 2, false)); err != nil {
		t.Fatal(err)
	}
	sp, err := base.withOS([]ossettings.SearchDim{{Name: "vm.dirty_bytes", Start: "0", Choices: []string{"0", "67108864", "1073741824"}}})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := sp.StartPoint(map[string]settings.Live{"work_mem": {Setting: "1"}}); err != nil || sp.Settings(p)["vm.dirty_bytes"] != "0" {
		t.Errorf("start point %v %v: want the OS dimension at its start", p, err)
	}
	var trials []Trial
	for i := range record.MinImportanceTrials + 2 {
		choice := float64(i % 3)
		trials = append(trials, Trial{N: i + 1, Point: []float64{float64(i % 2), choice}, Value: 1 + choice/10})
	}
	im := importance(sp, trials)
	if len(im) == 0 || im[0].Name != "vm.dirty_bytes" {
		t.Errorf("importance %+v: want vm.dirty_bytes first", im)
	}
	kept := map[string]string{"work_mem": "8MB", "vm.dirty_bytes": "1073741824", "block.read_ahead_kb": "2048"}
	r := &Result{record.Search{ID: "tune-x", Workload: "tpcb", Objective: ObjectiveTPS, Confirmed: true,
		Start: map[string]string{"work_mem": "4MB", "vm.dirty_bytes": "0", "block.read_ahead_kb": "128"}, Best: kept, Kept: kept,
		VsStart: stats.Effect{Pairs: 2, Level: 0.95, Percent: 9, Low: 2, High: 16, Valid: true}}}
	var b strings.Builder
	if err := r.Write(&b, "conf", false); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"block.read_ahead_kb", "2048       (start 128) [machine-wide]", "work_mem = '8MB'",
		"# os: {block.read_ahead_kb: 2048, vm.dirty_background_bytes: 268435456, vm.dirty_bytes: 1073741824}"} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "vm.dirty_bytes = ") || strings.Contains(text, "block.read_ahead_kb = ") {
		t.Errorf("OS settings written as postgresql.conf lines:\n%s", text)
	}
	b.Reset()
	if err := r.WriteSQL(&b, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "-- os: {block.read_ahead_kb: 2048") || strings.Contains(b.String(), "ALTER SYSTEM SET vm.") {
		t.Errorf("sql output:\n%s", b.String())
	}
}

// TestRunSettingsOfOSValues: the server is given its settings only; huge
// pages reserved for a run (hugepages: auto) come with huge_pages=on, which
// --apply (pgOnly) never keeps, as the reservation is restored.
func TestRunSettingsOfOSValues(t *testing.T) {
	values := map[string]string{"work_mem": "4MB", "huge_pages": "try", ossettings.Hugepages: "auto", "block.read_ahead_kb": "512"}
	if got := runSettings(values); fmt.Sprint(got) != fmt.Sprint(map[string]string{"huge_pages": "on", "work_mem": "4MB"}) {
		t.Errorf("runSettings: %v", got)
	}
	if got := pgOnly(values); fmt.Sprint(got) != fmt.Sprint(map[string]string{"huge_pages": "try", "work_mem": "4MB"}) {
		t.Errorf("pgOnly: %v", got)
	}
}
