package advise

import (
	"context"
	"sort"
	"strings"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
)

// PastRun is what a stored run measured that the advisor and the doctor use:
// the evidence of a real workload rather than of cumulative statistics.
type PastRun struct {
	ID                   string
	Workload             string
	Seconds              float64
	WALBytesPerSecond    float64 // mean while the run went
	WALPeakPerSecond     float64 // the busiest sample
	FPIShare             float64 // WAL records with a full-page image, 0..1 (-1: not sampled)
	CheckpointsTimed     int
	CheckpointsRequested int
	BackendWriteShare    float64 // buffers written by backends, 0..1 (-1: not sampled)
	Waits                []collect.Wait
	Tables               []collect.Table
}

// PastRunFrom digests a stored run. ok is false when the run has no
// collected samples (recorded without collectors).
func PastRunFrom(r *store.Run) (PastRun, bool) {
	p := PastRun{ID: r.ID, Workload: r.Workload, Seconds: r.Duration().Seconds(), FPIShare: -1, BackendWriteShare: -1}
	s := r.Samples
	if s == nil {
		return p, false
	}
	sums := map[string]float64{}
	counts := map[string]int{}
	for _, pt := range s.Points {
		sums[pt.Metric] += pt.Value
		counts[pt.Metric]++
		if pt.Metric == "pg.wal.mb_per_s" {
			p.WALPeakPerSecond = max(p.WALPeakPerSecond, pt.Value*1e6)
		}
	}
	if n := counts["pg.wal.mb_per_s"]; n > 0 {
		p.WALBytesPerSecond = sums["pg.wal.mb_per_s"] * 1e6 / float64(n)
	}
	if rec := sums["pg.wal.records_per_s"]; rec > 0 {
		p.FPIShare = sums["pg.wal.fpi_per_s"] / rec
	}
	if all := sums["pg.buffers.backend_per_s"] + sums["pg.buffers.checkpointer_per_s"] + sums["pg.buffers.bgwriter_per_s"]; all > 0 && counts["pg.buffers.backend_per_s"] > 0 {
		p.BackendWriteShare = sums["pg.buffers.backend_per_s"] / all
	}
	for _, e := range s.Events {
		if e.Kind != "checkpoint" {
			continue
		}
		if strings.HasPrefix(e.Detail, "requested") {
			p.CheckpointsRequested++
		} else {
			p.CheckpointsTimed++
		}
	}
	p.Waits = append(p.Waits, s.Waits...)
	sort.Slice(p.Waits, func(i, j int) bool { return p.Waits[i].Samples > p.Waits[j].Samples })
	p.Tables = s.Tables
	return p, true
}

// LoadPastRun finds the stored run ref (an id, a prefix, "last", "last~N")
// and digests it; a run without collected statistics is bad input.
func LoadPastRun(ctx context.Context, s *store.Store, ref string) (PastRun, error) {
	r, err := s.Find(ctx, ref)
	if err != nil {
		return PastRun{}, err
	}
	p, ok := PastRunFrom(r)
	if !ok {
		return p, problem.BadInput("record a run with statistics collection on", "run %s has no collected statistics", r.ID)
	}
	return p, nil
}
