package tune

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
)

// TPCB adapts the pgbench-compatible workload to experiments.
type TPCB struct {
	Scale   int
	Clients int
}

// Name implements Workload.
func (w TPCB) Name() string { return fmt.Sprintf("tpcb scale %d, %d clients", w.Scale, w.Clients) }

// LayoutOptions implements LayoutOptions: pgbench's -F fillfactor.
func (w TPCB) LayoutOptions() []string { return []string{"fillfactor"} }

// Prepare implements Workload: a fresh pgbench -i equivalent.
func (w TPCB) Prepare(ctx context.Context, dsn string, layout Layout) error {
	opts := tpcb.LoadOptions{Scale: w.Scale}
	if v, ok := layout["fillfactor"]; ok {
		ff, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("fillfactor %q: must be a whole number from 10 to 100", v)
		}
		opts.Fillfactor = ff
	}
	_, err := tpcb.Load(ctx, dsn, opts)
	return err
}

// Run implements Workload with pgbench's TPC-B-like script over prepared statements.
func (w TPCB) Run(ctx context.Context, dsn string, d time.Duration) (Measurement, error) {
	res, err := tpcb.Run(ctx, dsn, tpcb.RunOptions{Clients: w.Clients, Protocol: tpcb.ProtocolPrepared, Duration: d, NoCheck: true})
	if err != nil {
		return Measurement{}, err
	}
	m := Measurement{
		Transactions: res.Committed, Errors: res.Failed + int64(res.AbortedClients), Elapsed: res.Elapsed,
		P50: res.Latency.P50, P95: res.Latency.P95, P99: res.Latency.P99,
		PerSecond: perSecondOf(res.Series),
	}
	return m, nil
}

// perSecondOf turns a metrics series into committed transactions per second
// per point, all kinds together.
func perSecondOf(s *metrics.Series) []float64 {
	if s == nil {
		return nil
	}
	measured := false
	for _, p := range s.Points {
		measured = measured || p.Measured
	}
	out := make([]float64, 0, len(s.Points))
	for _, p := range s.Points {
		if p.Length < 500*time.Millisecond || measured && !p.Measured {
			continue // ramp-up and the run's ragged last sliver are not steady state
		}
		var n int64
		for _, c := range p.Counts {
			n += c
		}
		out = append(out, float64(n)/p.Length.Seconds())
	}
	return out
}
