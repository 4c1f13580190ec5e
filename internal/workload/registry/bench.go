package registry

import (
	"context"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/script"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// Bench is a workload as a version study (compare-versions) runs it: the
// method set internal/study asks for, which the command hands it.
type Bench interface {
	// Load makes dsn hold the workload's data, reusing a load of the same size.
	Load(ctx context.Context, dsn string) error
	// Workload is the workload of one run: compared, not checked.
	Workload() (workload.Workload, error)
	// Figures are what a study compares of one run's result.
	Figures(res *workload.Result) workload.Figures
}

// NewBench builds the workload kind as a version study runs it.
func NewBench(kind string, s Spec) (Bench, error) {
	e, err := Lookup(kind)
	if err != nil {
		return nil, err
	}
	if e.Bench == nil {
		return nil, problem.BadInput("use --workload "+Or(KindsFor(Versions)), "%s cannot be compared across majors", kind)
	}
	return e.Bench(s), nil
}

func tpcbBench(s Spec) Bench { return tpcbStudy{s} }

type tpcbStudy struct{ s Spec }

func (b tpcbStudy) Load(ctx context.Context, dsn string) error {
	if scale, err := tpcb.Scale(ctx, dsn); err == nil && scale == b.s.Scale {
		return nil
	}
	o := tpcb.LoadOptions{Scale: b.s.Scale}
	if err := o.Validate(); err != nil {
		return problem.BadInput("fix --scale", "%v", err)
	}
	_, err := tpcb.Load(ctx, dsn, o)
	return err
}

func (b tpcbStudy) Workload() (workload.Workload, error) {
	o := tpcb.RunOptions{Clients: b.s.Clients, Jobs: 1, Duration: b.s.Duration, NoCheck: true}
	if err := o.Validate(); err != nil {
		return nil, problem.BadInput("fix --clients or --duration", "%v", err)
	}
	return &tpcb.Workload{Options: o, CheckMode: workload.CheckNone}, nil
}

func (tpcbStudy) Figures(res *workload.Result) workload.Figures {
	return workload.Figures{Txns: float64(res.Transactions), TPS: res.TPS(), P50: res.P50, P95: res.P95, P99: res.P99}
}

func tpccBench(s Spec) Bench { return tpccStudy{s} }

type tpccStudy struct{ s Spec }

func (b tpccStudy) Load(ctx context.Context, dsn string) error {
	o := tpcc.LoadOptions{Warehouses: b.s.Scale, Progress: b.s.Progress}
	if err := o.Validate(); err != nil {
		return problem.BadInput("fix --warehouses", "%v", err)
	}
	_, err := tpcc.Load(ctx, dsn, o)
	return err
}

func (b tpccStudy) Workload() (workload.Workload, error) {
	w := &tpcc.Workload{Options: tpcc.RunOptions{Warehouses: b.s.Scale, Conns: b.s.Clients, Duration: b.s.Duration},
		CheckMode: tpcc.CheckNone}
	if err := w.Validate(); err != nil {
		return nil, problem.BadInput("fix --warehouses, --clients or --duration", "%v", err)
	}
	return w, nil
}

// Figures of TPC-C are all five kinds of transactions and the New-Order latency.
func (tpccStudy) Figures(res *workload.Result) workload.Figures {
	r := res.Detail.(*tpcc.RunResult)
	f := workload.Figures{TPS: r.TpmTotal / 60}
	for _, x := range r.Txns {
		f.Txns += float64(x.Count)
	}
	no := r.Txn("new_order").Latency
	f.P50, f.P95, f.P99 = no.P50, no.P95, no.P99
	return f
}

func scriptBench(s Spec) Bench { return scriptStudy{s} }

type scriptStudy struct{ s Spec }

// Load is pgbench -i on each major's cluster, which starts empty: a study
// cannot run with init none.
func (b scriptStudy) Load(ctx context.Context, dsn string) error {
	w, err := b.Workload()
	if err != nil {
		return err
	}
	if w.(*script.Workload).Init == script.InitNone {
		return problem.BadInput("drop init none: each major's cluster starts empty and is loaded with pgbench -i", "compare-versions cannot run a script on the user's own schema")
	}
	return w.Prepare(ctx, dsn, nil)
}

func (b scriptStudy) Workload() (workload.Workload, error) {
	w := newScript(b.s)
	w.Output = nil // the load's lines only
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

func (scriptStudy) Figures(res *workload.Result) workload.Figures {
	return workload.Figures{Txns: float64(res.Transactions), TPS: res.TPS(), P50: res.P50, P95: res.P95, P99: res.P99}
}
