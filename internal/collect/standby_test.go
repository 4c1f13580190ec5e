package collect_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestStandbySamplerWithoutAStandby: a standby that cannot be reached is
// one warning and no points, never a lost server; a server that is not in
// recovery (no WAL receiver) is sampled as a receiver not streaming, with
// its conflict counters as rates (issue 31; a real standby's in
// test/TestStandbyCollectorsAndPoolerStep).
func TestStandbySamplerWithoutAStandby(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A standby's connect may take as long as the interval: at 200 ms the
	// race detector on a loaded CI machine missed it, and the next try
	// comes only after standbyRetry (10 s).
	s, err := collect.Start(ctx, dsn, collect.Options{Interval: time.Second, NoOS: true, NoBloat: true, GrowthEvery: -1,
		Standbys: []collect.Standby{{Name: "gone", DSN: "host=127.0.0.1 port=1 user=x dbname=x connect_timeout=1"}, {Name: "self", DSN: dsn}}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3500 * time.Millisecond) // three ticks: a rate needs two
	got, err := s.Stop()
	if err != nil {
		t.Fatalf("a standby that cannot be reached failed the collection: %v", err)
	}
	var warned int
	for _, w := range got.Warnings {
		if strings.Contains(w, "standby gone") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("warnings %q, want one about standby gone", got.Warnings)
	}
	points := map[string]bool{}
	for _, p := range got.Points {
		if strings.HasPrefix(p.Metric, "standby.") {
			points[p.Metric+"|"+p.Key] = true
			if p.Metric == "standby.receiver_streaming" && p.Value != 0 {
				t.Errorf("a primary's receiver sampled as streaming: %+v", p)
			}
		}
	}
	for _, want := range []string{"standby.receiver_streaming|self", "standby.conflicts.snapshot_per_s|self", "standby.replay_delay_s|self"} {
		if !points[want] {
			t.Errorf("no %s; standby points %v", want, points)
		}
	}
	for k := range points {
		if strings.HasSuffix(k, "|gone") {
			t.Errorf("a point of the unreachable standby: %s", k)
		}
	}
}
