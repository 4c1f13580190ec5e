package tune

import (
	"context"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/tune/record"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
)

// TestSwitchbackComparison: with --design auto, two configurations that
// differ only in commit_delay are compared in one TPC-B run alternating
// them (one stored run, the blocks paired); one that differs in
// shared_buffers keeps separate runs and says why; with the default design
// nothing is switched (issue 29.1).
func TestSwitchbackComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("runs TPC-B")
	}
	c := pgtest.Cluster(t)
	dsn := pgtest.NewDatabase(t)
	w, err := registry.New("tpcb", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rec := &countRecorder{}
	tu := &Tuner{Server: ServerOf(c, dsn), Workload: WorkloadOf(w, dsn), Recorder: rec, TrialTime: 10 * time.Second,
		Objective: ObjectiveTPS, Design: "auto", Seed: 1}
	s := &session{Tuner: tu, ctx: ctx, outer: ctx, state: &State{ID: "sb"}, major: 15}
	if err := tu.Workload.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	a, b := map[string]string{"commit_delay": "0"}, map[string]string{"commit_delay": "200"}
	if d, why := s.designFor(a, map[string]string{"shared_buffers": "32MB"}); d != DesignSeparate || why == "" {
		t.Errorf("shared_buffers compared by %s (%s)", d, why)
	}
	s.Design = "separate"
	if d, _ := s.designFor(a, b); d != DesignSeparate {
		t.Errorf("the default design switched: %s", d)
	}
	s.Design = "auto"
	e, err := s.paired(a, b, RoleAblation, "commit_delay 200")
	if err != nil {
		t.Fatal(err)
	}
	// 2 × MinPairs × 10 s = 40 s: 5 pairs of 4 s blocks, 1 s settling.
	if !e.Valid || e.Pairs < 3 || rec.runs != 1 {
		t.Errorf("switchback comparison: %+v from %d stored runs", e, rec.runs)
	}
	t.Logf("commit_delay 200 against 0 by switchback: %s", effectText(e))
}

type countRecorder struct{ runs int }

func (r *countRecorder) Record(context.Context, RunInfo, workload.Measurement, error) (string, error) {
	r.runs++
	return "", nil
}

func (r *countRecorder) Save(context.Context, *record.Search) error { return nil }
