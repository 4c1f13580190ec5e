package tune

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// TPCC adapts the TPC-C workload to experiments: no-wait mode (no keying or
// think time), so that throughput measures the server.
type TPCC struct {
	Warehouses int
	Conns      int
}

// tpccUpdatedTables are the tables whose rows TPC-C updates in place: the
// ones a plain "fillfactor" layout option applies to.
var tpccUpdatedTables = []string{"warehouse", "district", "customer", "stock"}

// Name implements Workload.
func (w TPCC) Name() string {
	return fmt.Sprintf("tpcc %d warehouses, %d connections, no-wait", w.Warehouses, w.Conns)
}

// LayoutOptions implements LayoutOptions: "fillfactor" for the tables updated
// in place, or "fillfactor.TABLE" for one table.
func (w TPCC) LayoutOptions() []string {
	out := []string{"fillfactor"}
	for _, t := range tpcc.TableNames() {
		out = append(out, "fillfactor."+t)
	}
	return out
}

// Prepare implements Workload: a fresh load (forced, so that runs start from
// the same data).
func (w TPCC) Prepare(ctx context.Context, dsn string, layout Layout) error {
	opts := tpcc.LoadOptions{Warehouses: w.Warehouses, Force: true}
	for k, v := range layout {
		ff, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s %q: must be a whole number from 10 to 100", k, v)
		}
		if opts.Fillfactor == nil {
			opts.Fillfactor = map[string]int{}
		}
		if table, ok := strings.CutPrefix(k, "fillfactor."); ok {
			opts.Fillfactor[table] = ff
			continue
		}
		for _, t := range tpccUpdatedTables {
			if _, set := opts.Fillfactor[t]; !set {
				opts.Fillfactor[t] = ff
			}
		}
	}
	_, err := tpcc.Load(ctx, dsn, opts)
	return err
}

// Run implements Workload. Transactions counts all five kinds; ×60 of the
// New-Order share would be tpmC.
func (w TPCC) Run(ctx context.Context, dsn string, d time.Duration) (Measurement, error) {
	res, err := tpcc.Run(ctx, dsn, tpcc.RunOptions{Warehouses: w.Warehouses, Conns: w.Conns, Duration: d})
	if err != nil {
		return Measurement{}, err
	}
	m := Measurement{Elapsed: res.Measured, Errors: res.ErrorsTotal, PerSecond: perSecondOf(res.Series)}
	all := metrics.NewHistogram()
	if res.Total != nil {
		for _, h := range res.Total.Hists {
			all.Merge(h)
		}
	}
	m.Transactions = all.TotalCount()
	m.P50, m.P95, m.P99 = metrics.Percentile(all, 50), metrics.Percentile(all, 95), metrics.Percentile(all, 99)
	return m, nil
}
