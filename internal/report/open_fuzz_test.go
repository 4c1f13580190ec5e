package report_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/tune/record"
)

// FuzzOpen: 'pgoltp report REF' opens a stored run or search, whose id
// names the report file (so it is a valid id and one of the stored ones), or
// fails with a one-line bad-input problem; SearchRef takes exactly the tune
// forms.
func FuzzOpen(f *testing.F) {
	ctx := context.Background()
	st, err := store.Open(ctx, f.TempDir(), "")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 2 {
		r := &store.Run{Workload: "tpcb", Title: "t", StartedAt: t0.Add(time.Duration(i) * time.Minute), Status: store.Complete}
		id, err := st.Begin(ctx, r)
		if err != nil || st.Finish(ctx, r) != nil {
			f.Fatal(err)
		}
		ids = append(ids, id)
	}
	doc, _ := json.Marshal(record.Search{ID: "tune-x1", Workload: "TPC-B", Objective: "tps", Status: record.Complete, Started: t0})
	if err := st.SaveSearch(ctx, &store.Search{ID: "tune-x1", Kind: record.Kind, Started: t0, Document: doc}); err != nil {
		f.Fatal(err)
	}
	ids = append(ids, "tune-x1")
	for i, ref := range []string{"tune", "tune:tune-2026", "tune-20261123T1", "last", "20261123-114502-3f9a", "tuner", "tune:", "tune:tune-x",
		"tune-x1", "last~1", "2026", "../x", "tune:../x", ids[0], "g", "tune:last"} {
		f.Add(ref, uint8(i))
	}
	f.Fuzz(func(t *testing.T, ref string, which uint8) {
		if id, ok := report.SearchRef(ref); ok != (ref == "tune" || strings.HasPrefix(ref, "tune:") || strings.HasPrefix(ref, "tune-")) ||
			ok && !strings.HasSuffix(ref, id) {
			t.Fatalf("SearchRef(%q) = %q, %v", ref, id, ok)
		}
		format := []string{"html", "json", "csv"}[int(which)%3]
		sub, err := report.Open(ctx, st, ref, format)
		if err != nil {
			var p *problem.Problem
			if !errors.As(err, &p) || p.Code != problem.ExitBadInput || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Open(%q, %s): %v is not a one-line bad-input problem", ref, format, err)
			}
			return
		}
		if sub.Kind != "run" && sub.Kind != "search" || !store.ValidID(sub.ID) || !slices.Contains(ids, sub.ID) || sub.Render == nil {
			t.Fatalf("Open(%q, %s) = %+v", ref, format, sub)
		}
	})
}

// FuzzOutputFormat: --format and -o give one of the command's formats or a
// one-line bad-input problem.
func FuzzOutputFormat(f *testing.F) {
	for _, c := range [][2]string{{"", "run.html"}, {"", "x.HTM"}, {"JSON", ""}, {"", "a.csv"}, {"", "noext"}, {"xml", ""}, {"", "a.b/c"}, {"", ".json"}, {"html\n", ""}} {
		f.Add(c[0], c[1], false, false)
		f.Add(c[0], c[1], true, true)
	}
	f.Fuzz(func(t *testing.T, format, out string, jsonDefault, textFirst bool) {
		formats := []string{"html", "json", "csv"}
		if textFirst {
			formats = []string{"text", "json"}
		}
		got, err := report.OutputFormat("report", format, out, jsonDefault, formats...)
		if err != nil {
			var p *problem.Problem
			if !errors.As(err, &p) || p.Code != problem.ExitBadInput || strings.Contains(err.Error(), "\n") {
				t.Fatalf("OutputFormat(%q, %q): %v is not a one-line bad-input problem", format, out, err)
			}
			return
		}
		if !slices.Contains(formats, got) {
			t.Fatalf("OutputFormat(%q, %q) = %q, not one of %v", format, out, got, formats)
		}
	})
}
