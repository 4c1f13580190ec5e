package report

import (
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
)

// TestStandbyChartsOnlyWithStandbys: the standby-side charts (WAL
// receivers, conflicts, replay delay; issue 31) are drawn on the run's time
// axis, a series per standby, and absent from a run without standbys.
func TestStandbyChartsOnlyWithStandbys(t *testing.T) {
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	titles := func(s *collect.Samples) map[string][]string {
		out := map[string][]string{}
		for _, sec := range collectorCharts(s, start) {
			for _, c := range sec.Charts {
				for _, l := range c.Lines {
					out[c.Title] = append(out[c.Title], l.Name)
				}
			}
		}
		return out
	}
	plain := &collect.Samples{Points: []collect.Point{{At: start.Add(time.Second), Metric: "pg.xact.commits_per_s", Value: 10}}}
	for title := range titles(plain) {
		if title != "Transactions seen by the server" {
			t.Errorf("a run without standbys has chart %q", title)
		}
	}
	var pts []collect.Point
	for i, sb := range []string{"standby1", "standby2"} {
		for s := 1; s <= 3; s++ {
			at := start.Add(time.Duration(s) * time.Second)
			pts = append(pts, collect.Point{At: at, Metric: "standby.receiver_streaming", Key: sb, Value: 1},
				collect.Point{At: at, Metric: "standby.conflicts.snapshot_per_s", Key: sb, Value: float64(i)},
				collect.Point{At: at, Metric: "pg.replication.streaming", Key: sb, Value: 1})
		}
	}
	got := titles(&collect.Samples{Points: pts})
	for title, want := range map[string][]string{
		"WAL receivers (each standby's pg_stat_wal_receiver; 1 = streaming)": {"standby1 streaming", "standby2 streaming"},
		"Recovery conflicts on standbys (pg_stat_database_conflicts)":        {"standby2 snapshot"}, // standby1's are all 0: left out
		"WAL senders (pg_stat_replication; 1 = yes)":                         {"standby1 streaming", "standby2 streaming"},
	} {
		if len(got[title]) != len(want) || got[title][0] != want[0] {
			t.Errorf("chart %q: series %v, want %v", title, got[title], want)
		}
	}
}
