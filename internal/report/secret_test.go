package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/store"
)

// secretRun is a run holding a password everywhere a report could show one:
// a parameter, a note, a setting of the snapshot and a fact.
func secretRun(id string, start time.Time) *store.Run {
	return &store.Run{ID: id, Workload: "tpcb", Status: store.Complete, StartedAt: start, EndedAt: start.Add(2 * time.Second),
		Params:   []store.KV{{Name: "dsn", Value: "host=x password=secret-" + id}, {Name: "clients", Value: "2"}},
		Notes:    []string{"standby at postgres://rep:secret-" + id + "@h/db"},
		Headline: []store.Figure{{Name: "TPS", Value: 100, Unit: "txn/s"}},
		Series:   []store.Interval{{Second: 0, Type: "tpcb", Count: 100}, {Second: 1, Type: "tpcb", Count: 100}},
		Samples: &collect.Samples{Start: start, End: start.Add(2 * time.Second), Interval: time.Second,
			Settings: []collect.Setting{{Name: "primary_conninfo", Setting: "host=x password=secret-" + id, Source: "configuration file"}},
			Facts:    []collect.Fact{{Scope: "server", Name: "primary_conninfo", Value: "host=x password=secret-" + id}}},
	}
}

// TestReportsShowNoSecret: the HTML, JSON and CSV report of a run and the
// comparison of two (text, HTML, JSON) never show a password, even of a run
// that never went through the store's redaction.
func TestReportsShowNoSecret(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	a, b := secretRun("a1", start), secretRun("b2", start.Add(time.Minute))
	outputs := map[string]func(*bytes.Buffer) error{
		"html": func(w *bytes.Buffer) error { return report.HTML(w, a) },
		"json": func(w *bytes.Buffer) error { return report.JSON(w, a) },
		"csv":  func(w *bytes.Buffer) error { return report.CSV(w, a) },
	}
	for _, format := range []string{"text", "html", "json"} {
		outputs["compare "+format] = func(w *bytes.Buffer) error { return report.Compare([]*store.Run{a, b}).Write(w, format) }
	}
	for name, write := range outputs {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Contains(buf.String(), "secret") {
			t.Errorf("the %s report shows a password", name)
		}
	}
	if a.Params[0].Value != "host=x password=secret-a1" {
		t.Error("reporting changed the run itself")
	}
}
