package tune_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/tune/record"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// countingServer is the test's cluster as a tune.Server, counting how
// settings reach it.
type countingServer struct {
	c        *cluster.Cluster
	dsn      string
	applies  []map[string]string
	restarts int
	// checkpoints counts the checkpoints the tuner asked for that really
	// happened: the control file's checkpoint moved.
	checkpoints int
}

func (s *countingServer) Read(ctx context.Context) (map[string]settings.Live, int, error) {
	conn, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		return nil, 0, err
	}
	defer conn.Close(context.Background())
	return settings.ReadServer(ctx, conn)
}

func (s *countingServer) Apply(ctx context.Context, values map[string]string) (bool, error) {
	s.applies = append(s.applies, values)
	restarted, err := s.c.Apply(ctx, values)
	if restarted {
		s.restarts++
	}
	return restarted, err
}

func (s *countingServer) Checkpoint(ctx context.Context) error {
	before, err := checkpointLSN(ctx, s.dsn)
	if err != nil {
		return err
	}
	if _, err := experiment.Checkpoint(ctx, s.dsn); err != nil {
		return err
	}
	after, err := checkpointLSN(ctx, s.dsn)
	if err != nil {
		return err
	}
	if after != before {
		s.checkpoints++
	}
	return nil
}

// checkpointLSN is where the server's latest checkpoint is, from its control file.
func checkpointLSN(ctx context.Context, dsn string) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	var lsn string
	err = conn.QueryRow(ctx, "SELECT checkpoint_lsn::text FROM pg_control_checkpoint()").Scan(&lsn)
	return lsn, err
}

func (s *countingServer) Restore(ctx context.Context, before map[string]settings.Live, names []string) error {
	return restore.Settings(ctx, s.c, s.dsn, before, names)
}

// tpcb is TPC-B from the registry as a tune.Workload, counting its loads
// when prepares is set.
type tpcb struct {
	w        workload.Workload
	dsn      string
	prepares *int
}

func (w tpcb) Name() string { return w.w.Name() }
func (w tpcb) Prepare(ctx context.Context) error {
	if w.prepares != nil {
		*w.prepares++
	}
	return w.w.Prepare(ctx, w.dsn, nil)
}
func (w tpcb) Run(ctx context.Context, d time.Duration) (workload.Measurement, error) {
	res, err := w.w.Run(ctx, w.dsn, workload.RunOptions{Duration: d})
	if res == nil {
		return workload.Measurement{}, err
	}
	return res.Measurement, err
}

func newTPCB(t *testing.T) workload.Workload {
	w, err := registry.New("tpcb", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSearchBatchesRestartsAndResumes: on a real server, every measured run
// applies its whole configuration in one call (so a trial restarts at most
// once) and starts from freshly loaded data right after a checkpoint, and a
// search resumed from its stored state keeps its trials and
// continues to the new budget.
func TestSearchBatchesRestartsAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small search")
	}
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	lab := t.TempDir()
	server := &countingServer{c: c, dsn: dsn}
	prepares := 0
	newTuner := func(budget int, resume *tune.State) *tune.Tuner {
		return &tune.Tuner{Server: server, Workload: tpcb{w: newTPCB(t), dsn: dsn, prepares: &prepares}, Lab: lab,
			Limits: tune.Limits{RAM: 2 << 30, CPUs: 1}, ID: "t1", Seed: 2, Budget: budget,
			TrialTime: time.Second, Prewarm: 0, Reload: true, Confirm: 1, Ablation: 1, MaxPairs: 2, Resume: resume}
	}
	ctx := context.Background()
	first, err := newTuner(1, nil).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Trials) != 1 || !first.Restored {
		t.Fatalf("first search: %d trials, restored %v, notes %v", len(first.Trials), first.Restored, first.Notes)
	}
	// Runs: baseline, trial, baseline, then confirmation and ablation runs:
	// one Apply each, with the whole configuration.
	if len(server.applies) < 3 {
		t.Fatalf("%d Apply calls for at least 3 runs", len(server.applies))
	}
	size := len(server.applies[0])
	for i, a := range server.applies {
		if len(a) != size {
			t.Errorf("Apply %d set %d settings, the first %d: configurations are not applied whole", i, len(a), size)
		}
	}
	if server.restarts > len(server.applies) {
		t.Errorf("%d restarts for %d applies", server.restarts, len(server.applies))
	}
	// Every measured run starts from freshly loaded data, right after a
	// checkpoint, and the data is loaded once per run, not once more
	// before the first.
	if prepares != len(server.applies) {
		t.Errorf("%d loads for %d measured runs", prepares, len(server.applies))
	}
	if server.checkpoints != len(server.applies) {
		t.Errorf("%d checkpoints for %d measured runs", server.checkpoints, len(server.applies))
	}

	state, err := tune.Load(lab, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(state.Trials) != 1 {
		t.Fatalf("stored state has %d trials, want 1", len(state.Trials))
	}
	fi, err := os.Stat(tune.Path(lab, "t1"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	// A search killed mid-trial leaves the trial's values on the server:
	// resumed, the search must take its originals from its state, never
	// from the server.
	original := readLive(t, dsn, "commit_siblings")
	if len(state.Original) == 0 || state.Original["commit_siblings"].Setting != original {
		t.Fatalf("the stored state lacks the original commit_siblings %s: %v", original, state.Original["commit_siblings"])
	}
	leftover := "17"
	if original == leftover {
		leftover = "16"
	}
	if _, err := c.Apply(ctx, map[string]string{"commit_siblings": leftover}); err != nil {
		t.Fatal(err)
	}
	second, err := newTuner(2, state).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := readLive(t, dsn, "commit_siblings"); got != original || second.Start["commit_siblings"] != first.Start["commit_siblings"] {
		t.Errorf("resumed over a killed trial's commit_siblings=%s: start %s (first search %s), restored to %s, original %s",
			leftover, second.Start["commit_siblings"], first.Start["commit_siblings"], got, original)
	}
	if len(second.Trials) != 2 || second.ID != "t1" {
		t.Fatalf("resumed search: id %s, %d trials, want t1 with 2", second.ID, len(second.Trials))
	}
	if a, b := first.Trials[0].Settings["shared_buffers"], second.Trials[0].Settings["shared_buffers"]; a != b {
		t.Errorf("resume changed trial 1: %s → %s", a, b)
	}
	if !second.Restored {
		t.Errorf("resumed search did not restore: %v", second.Notes)
	}
	// A new search with the same id is refused: stored states are never overwritten.
	if _, err := newTuner(1, nil).Run(ctx); err == nil {
		t.Error("a second search t1 overwrote the stored one")
	}
}

// cancellingRecorder counts the stored runs by role and cancels the
// search's context once a run of the role cancelOn is stored: Ctrl-C
// arriving during that phase.
type cancellingRecorder struct {
	cancelOn string
	cancel   context.CancelFunc
	roles    map[string]int
}

func (r *cancellingRecorder) Record(ctx context.Context, info tune.RunInfo, m workload.Measurement, failure error) (string, error) {
	r.roles[info.Role]++
	if info.Role == r.cancelOn {
		r.cancel()
	}
	return "", nil
}

func (r *cancellingRecorder) Save(context.Context, *record.Search) error { return nil }

// TestInterruptDuringConfirmation: Ctrl-C while the top candidates are
// re-run stops after the run in progress: no further re-run, no comparison
// with advise, no ablation; the result says it was interrupted, keeps the
// starting settings (the candidate is unproven) and the server's settings
// are restored.
func TestInterruptDuringConfirmation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small search")
	}
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	server := &countingServer{c: c, dsn: dsn}
	before, _, err := server.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &cancellingRecorder{cancelOn: tune.RoleConfirm, cancel: cancel, roles: map[string]int{}}
	tu := &tune.Tuner{Server: server, Workload: tpcb{w: newTPCB(t), dsn: dsn}, Recorder: rec, Lab: t.TempDir(),
		Limits: tune.Limits{RAM: 2 << 30, CPUs: 1}, ID: "t2", Seed: 3, Budget: 2, TrialTime: time.Second,
		Advise: map[string]string{"work_mem": "8MB"}, Confirm: 2, Ablation: 2, MinEffect: 7, MaxPairs: 9}
	var log strings.Builder
	tu.Log = &log
	res, err := tu.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Issue 29.4: before its first run, the confirmation says how many
	// pairs it expects for ±--min-effect from the baselines' noise so far.
	if !regexp.MustCompile(`candidate 1: expects (\d+ pairs|more than 9 pairs) to resolve ±7% \(run-to-run noise ±[0-9.]+% from [2-9] baseline runs`).MatchString(log.String()) {
		t.Errorf("the confirmation did not say its plan first:\n%s", log.String())
	}
	if !res.Interrupted || !res.Restored {
		t.Errorf("interrupted %v, restored %v; notes %q", res.Interrupted, res.Restored, res.Notes)
	}
	// Not re-run, the best so far is no result: the start is kept and the
	// candidate listed as unproven.
	if len(res.Kept) != 0 || len(res.Unproven) == 0 || res.Shown() {
		t.Errorf("interrupted search keeps %v, unproven %v (shown %v): want nothing kept, the candidate unproven", res.Kept, res.Unproven, res.Shown())
	}
	if rec.roles[tune.RoleConfirm] != 1 || rec.roles[tune.RoleAdvise] != 0 || rec.roles[tune.RoleAblation] != 0 {
		t.Errorf("runs after the interrupt: %v (want the one confirm run in progress, nothing after)", rec.roles)
	}
	after, _, err := server.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Tried {
		if before[n].Setting != after[n].Setting {
			t.Errorf("%s = %s after the search, %s before", n, after[n].Setting, before[n].Setting)
		}
	}
}

// readLive is one setting's raw value as a new session sees it.
func readLive(t *testing.T, dsn, name string) string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v string
	if err := conn.QueryRow(context.Background(), "SELECT setting FROM pg_settings WHERE name = $1", name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
