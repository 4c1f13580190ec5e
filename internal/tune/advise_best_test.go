package tune

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/search"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// TestBestThatIsAdviseIsNotComparedWithItself: when the candidate that wins
// the confirmation is advise's configuration (trial 1), "best vs advise"
// would pair a configuration with itself and only measure the machine's
// noise (the TPC-B search of 2026-11-27 spent 11 runs on it, −0.5% ±15%).
// The result says the best is advise's, runs nothing more, and prints no
// interval for it.
func TestBestThatIsAdviseIsNotComparedWithItself(t *testing.T) {
	space, err := NewSpace(15, nil, Limits{RAM: 8 * gib, CPUs: 2, MaxConnections: 100}, false)
	if err != nil {
		t.Fatal(err)
	}
	low := make(search.Point, len(space.Dims()))
	for i, d := range space.Dims() {
		if d.Choices == nil {
			low[i] = d.Low
		}
	}
	advise := map[string]string{"commit_delay": "40", "wal_compression": "lz4"}
	warm, err := space.PointOf(advise, low)
	if err != nil {
		t.Fatal(err)
	}
	server := &simServer{}
	// Every configuration runs at the same level: the confirmation ends
	// undecided after its pairs; what matters is what runs after it.
	w := &countingWorkload{driftingWorkload: driftingWorkload{rng: rand.New(rand.NewPCG(1, 2)), server: server,
		runDrift: 0.05, secondNoise: 0.03, withoutIt: 1}}
	var log strings.Builder
	s := &session{Tuner: &Tuner{Server: server, Workload: w, Advise: advise, Log: &log}, ctx: context.Background(),
		outer: context.Background(), space: space, state: &State{ID: "sim"}, startSet: space.Settings(low),
		warm: []search.Point{warm}}
	res := &Result{}
	if _, err := s.confirm(res, []search.Point{warm}); err != nil {
		t.Fatal(err)
	}
	confirmRuns := w.runs
	if !res.BestIsAdvise || res.VsAdvise.Pairs != 0 {
		t.Errorf("best is advise's: BestIsAdvise %v, VsAdvise %+v; want true and nothing measured", res.BestIsAdvise, res.VsAdvise)
	}
	if want := 2*res.VsStart.Pairs + 1; confirmRuns != want {
		t.Errorf("%d runs for a confirmation of %d pairs: want %d (nothing after it)", confirmRuns, res.VsStart.Pairs, want)
	}
	if !strings.Contains(log.String(), "best vs advise: the best is advise's configuration") {
		t.Errorf("the log does not say the best is advise's:\n%s", log.String())
	}
	var out strings.Builder
	if err := res.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "gain over advise's:       none: the best is advise's configuration") {
		t.Errorf("the result does not say the best is advise's:\n%s", out.String())
	}
}

// countingWorkload counts the runs of a driftingWorkload.
type countingWorkload struct {
	driftingWorkload
	runs int
}

func (w *countingWorkload) Run(ctx context.Context, d time.Duration) (workload.Measurement, error) {
	w.runs++
	return w.driftingWorkload.Run(ctx, d)
}
