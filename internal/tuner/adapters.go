package tuner

// The adapters between the tuner's small interfaces and pgoltp's concrete
// types: a registry workload, the managed cluster or an external server
// (tune.Server), and the results store (recorder).

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/tune"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// ServerOf is Server over tune.Server (the cluster or an external server)
// reached at dsn.
func ServerOf(s tune.Server, dsn string) Server { return tunedServer{server: s, dsn: dsn} }

type tunedServer struct {
	server tune.Server
	dsn    string
}

func (s tunedServer) Read(ctx context.Context) (map[string]settings.Live, int, error) {
	live, major, _, _, err := tune.ReadServer(ctx, s.dsn, 0)
	return live, major, err
}

func (s tunedServer) Apply(ctx context.Context, values map[string]string) (bool, error) {
	if err := settings.CheckApplicable(values); err != nil {
		return false, err
	}
	return s.server.Apply(ctx, values)
}

func (s tunedServer) WarmCache(ctx context.Context) (int64, error) {
	return tune.WarmCache(ctx, s.dsn)
}

func (s tunedServer) Restore(ctx context.Context, before map[string]settings.Live, names []string) error {
	return tune.Restore(ctx, s.server, s.dsn, before, names)
}

// WorkloadOf is Workload over a workload.Workload run at dsn.
func WorkloadOf(w workload.Workload, dsn string) Workload { return tunedWorkload{w: w, dsn: dsn} }

type tunedWorkload struct {
	w   workload.Workload
	dsn string
}

func (a tunedWorkload) Name() string                      { return a.w.Name() }
func (a tunedWorkload) Prepare(ctx context.Context) error { return a.w.Prepare(ctx, a.dsn, nil) }
func (a tunedWorkload) Run(ctx context.Context, d time.Duration) (Measurement, error) {
	res, err := a.w.Run(ctx, a.dsn, d)
	if res == nil {
		return Measurement{}, err
	}
	m := res.Measurement
	return Measurement{TPS: m.TPS(), PerSecond: m.PerSecond, P99: m.P99, Errors: m.Errors}, err
}

// StoreRecorder stores each run of a search in the results store (lab,
// resultsDSN as recorder.Begin takes them), tagged with the search id, so
// 'pgoltp runs', 'report' and 'compare' see trials.
type StoreRecorder struct{ Lab, ResultsDSN, Kind, Workload string }

func (r StoreRecorder) Record(ctx context.Context, info RunInfo, m Measurement, failure error) (string, error) {
	run := &store.Run{Workload: r.Kind, Title: fmt.Sprintf("%s %s: %s", info.Search, info.Role, info.Label),
		StartedAt: info.Started, EndedAt: time.Now(), Status: store.Complete}
	run.Params = []store.KV{{Name: "tune search", Value: info.Search}, {Name: "tune role", Value: info.Role},
		{Name: "tune trial", Value: strconv.Itoa(info.Trial)}, {Name: "workload", Value: r.Workload}}
	names := make([]string, 0, len(info.Settings))
	for n := range info.Settings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		run.Params = append(run.Params, store.KV{Name: "setting " + n, Value: info.Settings[n]})
	}
	run.Headline = []store.Figure{
		{Name: "TPS", Value: m.TPS, Unit: "txn/s"},
		{Name: "latency p99", Value: float64(m.P99) / float64(time.Millisecond), Unit: "ms"},
		{Name: "errors", Value: float64(m.Errors), Unit: "txn"},
	}
	if failure != nil {
		run.Status = store.Failed
		run.Notes = append(run.Notes, "failed: "+oneLine(failure.Error()))
	}
	rec, err := recorder.Begin(ctx, r.Lab, r.ResultsDSN, "", run, collect.Options{})
	if err != nil {
		return "", err
	}
	return rec.Finish(ctx, run.Status)
}
