package registry

import (
	"context"
	"io"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/study"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// Study is the workload a version study (compare-versions) runs for o, as
// study.Bench; progress, if set, gets the TPC-C load's progress.
func Study(o study.Options, progress io.Writer) study.Bench {
	if o.Workload == "tpcc" {
		return tpccStudy{o: o, progress: progress}
	}
	return tpcbStudy{o}
}

type tpcbStudy struct{ o study.Options }

func (b tpcbStudy) Load(ctx context.Context, dsn string) error {
	if scale, err := tpcb.Scale(ctx, dsn); err == nil && scale == b.o.Scale {
		return nil
	}
	o := tpcb.LoadOptions{Scale: b.o.Scale}
	if err := o.Validate(); err != nil {
		return problem.BadInput("fix --scale", "%v", err)
	}
	_, err := tpcb.Load(ctx, dsn, o)
	return err
}

func (b tpcbStudy) Workload() (workload.Workload, error) {
	o := tpcb.RunOptions{Clients: b.o.Clients, Jobs: 1, Duration: b.o.Duration, NoCheck: true}
	if err := o.Validate(); err != nil {
		return nil, problem.BadInput("fix --clients or --duration", "%v", err)
	}
	return &tpcb.Workload{Options: o, SkipCheck: true}, nil
}

func (tpcbStudy) Figures(res *workload.Result) study.Figures {
	return study.Figures{Txns: float64(res.Transactions), TPS: res.TPS(), P50: res.P50, P95: res.P95, P99: res.P99}
}

type tpccStudy struct {
	o        study.Options
	progress io.Writer
}

func (b tpccStudy) Load(ctx context.Context, dsn string) error {
	o := tpcc.LoadOptions{Warehouses: b.o.Warehouses, Progress: b.progress}
	if err := o.Validate(); err != nil {
		return problem.BadInput("fix --warehouses", "%v", err)
	}
	_, err := tpcc.Load(ctx, dsn, o)
	return err
}

func (b tpccStudy) Workload() (workload.Workload, error) {
	w := &tpcc.Workload{Options: tpcc.RunOptions{Warehouses: b.o.Warehouses, Conns: b.o.Clients, Duration: b.o.Duration},
		CheckMode: tpcc.CheckNone}
	if err := w.Validate(); err != nil {
		return nil, problem.BadInput("fix --warehouses, --clients or --duration", "%v", err)
	}
	return w, nil
}

// Figures of TPC-C are all five kinds of transactions and the New-Order latency.
func (tpccStudy) Figures(res *workload.Result) study.Figures {
	r := res.Detail.(*tpcc.RunResult)
	f := study.Figures{TPS: r.TpmTotal / 60}
	for _, x := range r.Txns {
		f.Txns += float64(x.Count)
	}
	no := r.Txn("new_order").Latency
	f.P50, f.P95, f.P99 = no.P50, no.P95, no.P99
	return f
}
