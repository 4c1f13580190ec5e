package tune

// The adapters between the tuner's small interfaces and pgoltp's concrete
// types: a registry workload, the managed cluster or an external server
// (restore.Server), and the results store (recorder).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/restore"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/tune/record"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// ServerOf is Server over restore.Server (the cluster or an external server)
// reached at dsn.
func ServerOf(s restore.Server, dsn string) Server { return tunedServer{server: s, dsn: dsn} }

type tunedServer struct {
	server restore.Server
	dsn    string
}

func (s tunedServer) Read(ctx context.Context) (map[string]settings.Live, int, error) {
	live, major, _, _, err := advise.ReadServer(ctx, s.dsn, 0)
	return live, major, err
}

func (s tunedServer) Apply(ctx context.Context, values map[string]string) (bool, error) {
	if err := settings.CheckApplicable(values); err != nil {
		return false, err
	}
	return s.server.Apply(ctx, values)
}

func (s tunedServer) WarmCache(ctx context.Context) (int64, error) {
	return experiment.WarmCache(ctx, s.dsn)
}

func (s tunedServer) Checkpoint(ctx context.Context) error {
	_, err := experiment.Checkpoint(ctx, s.dsn)
	return err
}

func (s tunedServer) Restore(ctx context.Context, before map[string]settings.Live, names []string) error {
	return restore.Settings(ctx, s.server, s.dsn, before, names)
}

// WorkloadOf is Workload over a workload.Workload run at dsn.
func WorkloadOf(w workload.Workload, dsn string) Workload { return tunedWorkload{w: w, dsn: dsn} }

type tunedWorkload struct {
	w          workload.Workload
	dsn        string
	onInterval workload.IntervalFunc // every run's intervals (the live endpoint); nil: none
}

func (a tunedWorkload) Name() string                      { return a.w.Name() }
func (a tunedWorkload) Prepare(ctx context.Context) error { return a.w.Prepare(ctx, a.dsn, nil) }
func (a tunedWorkload) Run(ctx context.Context, d time.Duration) (workload.Measurement, error) {
	meter := collect.StartCPU(serverPID(ctx, a.dsn))
	res, err := a.w.Run(ctx, a.dsn, workload.RunOptions{Duration: d, OnInterval: a.onInterval})
	if res == nil {
		meter.Stop(time.Time{}, time.Time{})
		return workload.Measurement{}, err
	}
	u := meter.Stop(res.MeasureStart, res.MeasureEnd)
	res.SetCPU(u.Server, u.Driver, u.Steal, u.Probe)
	res.Measurement.Covariates = experiment.HostCovariates(u, res.Measurement.Elapsed.Seconds()) // issue 29.2
	return res.Measurement, err
}

// serverPID is the postmaster of the server at dsn when it is on this host
// (collect.ServerPID), else 0.
func serverPID(ctx context.Context, dsn string) int {
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return 0
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return collect.ServerPID(ctx, conn)
}

// StoreRecorder stores each run of a search in the results store (lab,
// resultsDSN as recorder.Begin takes them), tagged with the search id, so
// 'pgoltp runs', 'report' and 'compare' see trials.
type StoreRecorder struct{ Lab, ResultsDSN, Kind, Workload string }

func (r StoreRecorder) Record(ctx context.Context, info RunInfo, m workload.Measurement, failure error) (string, error) {
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
		{Name: "TPS", Value: m.TPS(), Unit: "txn/s"},
		{Name: "latency p99", Value: float64(m.P99) / float64(time.Millisecond), Unit: "ms"},
		{Name: "errors", Value: float64(m.Errors), Unit: "txn"},
	}
	if m.ServerCPU > 0 {
		run.Headline = append(run.Headline, store.Figure{Name: "work per CPU", Value: m.PerCPU(), Unit: "txn per CPU-s (server+driver)"},
			store.Figure{Name: "server CPU", Value: m.ServerCPU.Seconds(), Unit: "CPU-s"},
			store.Figure{Name: "driver CPU", Value: m.DriverCPU.Seconds(), Unit: "CPU-s"})
	}
	if len(m.SpeedProbe) > 0 {
		run.Headline = append(run.Headline, store.Figure{Name: "steal", Value: m.Steal.Seconds(), Unit: "CPU-s (host)"},
			store.Figure{Name: "CPU probe, slowest", Value: float64(slices.Max(m.SpeedProbe)) / float64(time.Millisecond), Unit: "ms per unit"})
	}
	if failure != nil {
		run.Status = store.Failed
		run.Notes = append(run.Notes, "failed: "+oneLine(failure.Error()))
	}
	rec, err := recorder.Begin(ctx, r.Lab, r.ResultsDSN, "", run, collect.Options{})
	if err != nil {
		return "", err
	}
	id, err := rec.Finish(ctx, run.Status)
	if err != nil {
		return id, err
	}
	return id, r.withStore(ctx, func(st *store.Store) error {
		return st.LinkRun(ctx, info.Search, store.SearchRun{RunID: id, Role: info.Role, Trial: info.Trial, Label: info.Label})
	})
}

// Save stores the search's record (its document and title).
func (r StoreRecorder) Save(ctx context.Context, s *record.Search) error {
	doc, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return r.withStore(ctx, func(st *store.Store) error {
		return st.SaveSearch(ctx, &store.Search{ID: s.ID, Kind: record.Kind, Title: fmt.Sprintf("%s, objective %s", s.Workload, s.Objective),
			Started: s.Started, Updated: s.Updated, Document: doc})
	})
}

func (r StoreRecorder) withStore(ctx context.Context, fn func(*store.Store) error) error {
	st, err := store.Open(ctx, r.Lab, r.ResultsDSN)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

// TablesOf is Tables over the tables workload w updates in place, at dsn;
// an error says w has none.
func TablesOf(w workload.Workload, dsn string) (Tables, error) {
	u, ok := w.(workload.UpdatedInPlace)
	if !ok || len(u.UpdatedTables()) == 0 {
		return nil, fmt.Errorf("%s updates no table in place: --layout has nothing to search", w.Name())
	}
	return sqlTables{names: u.UpdatedTables(), dsn: dsn}, nil
}

type sqlTables struct {
	names []string
	dsn   string
}

func (t sqlTables) Names() []string { return t.names }

func (t sqlTables) Fillfactors(ctx context.Context) (map[string]int, error) {
	conn, err := adminconn.Connect(ctx, t.dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	out := map[string]int{}
	for _, name := range t.names {
		var ff int
		err := conn.QueryRow(ctx, `SELECT coalesce((SELECT option_value::int FROM pg_options_to_table(c.reloptions) WHERE option_name = 'fillfactor'), 0)
			FROM pg_class c WHERE c.oid = to_regclass($1)`, pgx.Identifier{name}.Sanitize()).Scan(&ff)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		out[name] = ff
	}
	return out, nil
}

func (t sqlTables) Rewrite(ctx context.Context, ff map[string]int) error {
	conn, err := adminconn.Connect(ctx, t.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, name := range t.names {
		table := pgx.Identifier{name}.Sanitize()
		set := "RESET (fillfactor)"
		if v, ok := ff[name]; ok && v != 0 {
			if v < 10 || v > 100 {
				return fmt.Errorf("fillfactor %d for %s: must be 10 to 100", v, name)
			}
			set = "SET (fillfactor = " + strconv.Itoa(v) + ")"
		}
		// VACUUM FULL rewrites the table (and its indexes) with the new
		// fillfactor; ANALYZE so that the plans see the new size.
		for _, q := range []string{"ALTER TABLE " + table + " " + set, "VACUUM (FULL, ANALYZE) " + table} {
			if _, err := conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
	}
	return nil
}
