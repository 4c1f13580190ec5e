package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/tune/record"
)

func TestSearchRef(t *testing.T) {
	for ref, want := range map[string]struct {
		id string
		ok bool
	}{
		"tune": {"", true}, "tune:tune-2026": {"tune-2026", true}, "tune-20261123T1": {"tune-20261123T1", true},
		"last": {"", false}, "20261123-114502-3f9a": {"", false}, "tuner": {"", false},
	} {
		if id, ok := report.SearchRef(ref); id != want.id || ok != want.ok {
			t.Errorf("SearchRef(%q) = %q, %v; want %q, %v", ref, id, ok, want.id, want.ok)
		}
	}
}

// TestSearchPage: a search stored as the tuner stores it (its record and
// linked runs) renders with every trial, the failed one with its reason,
// the best marked, the unsafe setting labelled, the ablation and layout
// rows, and comes back whole as JSON.
func TestSearchPage(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now().Add(-time.Hour)
	runID := func(i int, role string, trial int) string {
		r := &store.Run{Workload: "tpcb", Title: role, StartedAt: t0.Add(time.Duration(i) * time.Minute)}
		if _, err := st.Begin(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Status = store.Complete
		if err := st.Finish(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := st.LinkRun(ctx, "tune-x1", store.SearchRun{RunID: r.ID, Role: role, Trial: trial, Label: role}); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	start := map[string]string{"work_mem": "4MB", "synchronous_commit": "on", "huge_pages": "try", "block.read_ahead_kb": "128"}
	best := map[string]string{"work_mem": "16MB", "synchronous_commit": "off", "huge_pages": "try", "block.read_ahead_kb": "512"}
	s := record.Search{ID: "tune-x1", Workload: "TPC-B", Objective: "tps", Major: 15, Status: record.Complete, Started: t0,
		TrialTime: 3 * time.Second, Start: start, Best: best, Confirmed: true,
		VsStart: stats.Effect{Valid: true, Level: 0.95, Pairs: 2, Percent: 12.5, Low: 3.2, High: 21.9},
		Kept:    map[string]string{"work_mem": "16MB", "synchronous_commit": "off", "block.read_ahead_kb": "512"},
		Ablation: []record.Contribution{
			{Name: "work_mem", Value: "16MB", Start: "4MB", Measured: true, Kept: true, Removal: stats.Effect{Valid: true, Level: 0.95, Percent: -8, Low: -12, High: -3}},
			{Name: "synchronous_commit", Value: "off", Start: "on", Kept: true},
		},
		Importance: []record.Importance{{Name: "work_mem", Rho: 0.9, N: 3}},
		Layout: &record.Layout{Tables: []string{"pgbench_accounts"}, Start: map[string]int{"pgbench_accounts": 100},
			Best: map[string]int{"pgbench_accounts": 80}, Gain: stats.Effect{Valid: true, Level: 0.95, Percent: 4, Low: -1, High: 9}},
	}
	s.BaselineRuns = append(s.BaselineRuns, record.Baseline{After: 0, Level: 100, RunID: runID(0, "baseline", 0)})
	for n, tr := range []record.Trial{
		{N: 1, Settings: map[string]string{"work_mem": "8MB", "synchronous_commit": "on", "huge_pages": "try"}, Ratio: 1.02, Value: 1.02, BestSoFar: 1.02},
		{N: 2, Settings: map[string]string{"work_mem": "4MB", "synchronous_commit": "on", "huge_pages": "on"}, Failed: true, Error: "server did not start: huge pages", BestSoFar: 1.02},
		{N: 3, Settings: best, Ratio: 1.1, Value: 1.1, BestSoFar: 1.1},
	} {
		tr.RunID = runID(2*n+1, "trial", tr.N)
		s.Trials = append(s.Trials, tr)
		s.BaselineRuns = append(s.BaselineRuns, record.Baseline{After: tr.N, Level: 100 + float64(n), RunID: runID(2*n+2, "baseline", tr.N)})
		s.Baselines = append(s.Baselines, 100+float64(n))
	}
	s.Layout.Candidates = []record.LayoutTrial{{N: 1, Fillfactor: map[string]int{"pgbench_accounts": 80}, Ratio: 1.04, RunID: runID(9, "layout", 1)}}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveSearch(ctx, &store.Search{ID: s.ID, Kind: record.Kind, Started: t0, Document: doc}); err != nil {
		t.Fatal(err)
	}

	v, err := report.LoadSearch(ctx, st, "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.SearchHTML(&b, v); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String()) // html/template writes + as &#43;
	for _, want := range []string{
		`id="trial-1"`, `id="trial-2"`, `id="trial-3"`, s.Trials[0].RunID, s.Trials[2].RunID,
		`class=" best" id="trial-3"`, `class="failed" id="trial-2"`, "FAILED: server did not start: huge pages",
		`id="ablation-work_mem"`, `id="ablation-synchronous_commit"`, "-8.0% (95% CI -12.0% .. -3.0%)", "not measured (kept)",
		"+12.5%", "+3.2% .. +21.9%", `risk-can-lose-data-on-crash`, `id="chart-trajectory"`, "baseline runs (× the first: drift)",
		"pgbench_accounts 80", "not kept (the interval does not lie above zero)", "Spearman", s.Layout.Candidates[0].RunID,
		`class="marker marker-failed"`, `risk-machine-wide`, // tune --os: an OS value is labelled machine-wide
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the search page lacks %q", want)
		}
	}
	b.Reset()
	if err := report.SearchJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	var back report.SearchView
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Trials) != 3 || len(back.Runs) != 8 || back.Layout == nil || back.Ablation[0].Removal.Percent != -8 {
		t.Errorf("JSON read back: %d trials, %d runs, layout %v", len(back.Trials), len(back.Runs), back.Layout)
	}
	if _, err := report.LoadSearch(ctx, st, "tune-nope"); err == nil {
		t.Error("a missing search loaded")
	}
}

// TestSearchPageUnproven: a search whose best was not shown better than the
// start says the start stays and lists the candidate as unproven (issue 29.5).
func TestSearchPageUnproven(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := record.Search{ID: "tune-x2", Workload: "TPC-B", Objective: "tps", Major: 15, Status: record.Complete, Started: time.Now(),
		Start: map[string]string{"work_mem": "4MB"}, Best: map[string]string{"work_mem": "64MB"}, Confirmed: true,
		VsStart:  stats.Effect{Valid: true, Level: 0.95, Pairs: 2, Percent: 6.3, Low: -51.9, High: 134.8},
		Kept:     map[string]string{},
		Unproven: map[string]string{"work_mem": "64MB"}}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveSearch(ctx, &store.Search{ID: s.ID, Kind: record.Kind, Started: s.Started, Document: doc}); err != nil {
		t.Fatal(err)
	}
	v, err := report.LoadSearch(ctx, st, "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.SearchHTML(&b, v); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	for _, want := range []string{"No setting is kept: the starting configuration stays.", `id="unproven-table"`, "<code>64MB</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the search page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="kept-table"`) {
		t.Error("an unproven best is shown as kept")
	}
}
