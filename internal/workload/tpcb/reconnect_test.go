package tpcb

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestRunSurvivesServerRestart restarts (fast shutdown) and crashes (SIGKILL,
// then crash recovery) the managed server in the middle of a run: every
// client reconnects and goes on, the run completes, reports
// the outages, and the check passes (a transaction in flight when the server
// went is in doubt: it may or may not have committed).
func TestRunSurvivesServerRestart(t *testing.T) {
	cl := pgtest.Cluster(t)
	dsn := loadedDatabase(t)
	cases := []struct {
		name  string
		crash bool
	}{
		{"restart", false},
		{"kill", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			done := make(chan error, 1)
			go func() {
				time.Sleep(2 * time.Second)
				if tc.crash {
					if err := cl.Kill(); err != nil {
						done <- err
						return
					}
					done <- cl.Start(ctx)
					return
				}
				done <- cl.Restart(ctx)
			}()
			// A restart takes 1-3 s, a crash recovery on a loaded 2-core box under
			// -race took over 6 s (clients were still reconnecting when an 8 s run
			// ended): leave ample time after it.
			const runFor = 20 * time.Second
			res, err := Run(ctx, dsn, RunOptions{Clients: 3, Jobs: 1, Duration: runFor})
			if rerr := <-done; rerr != nil {
				t.Fatalf("restarting the server: %v", rerr)
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.AbortedClients != 0 {
				t.Fatalf("%d clients aborted: %v", res.AbortedClients, res.Errors)
			}
			if len(res.Outages) < 3 { // every client lost its connection
				t.Fatalf("%d outages recorded, want one per client at least: %+v", len(res.Outages), res.Outages)
			}
			for _, o := range res.Outages {
				if o.Restored.IsZero() || o.Restored.Before(o.Lost) || o.Attempts < 1 {
					t.Errorf("outage not closed: %+v", o)
				}
			}
			if res.InDoubt != int64(len(res.Outages)) {
				t.Errorf("%d in doubt for %d outages", res.InDoubt, len(res.Outages))
			}
			if res.Check == nil || !res.Check.OK {
				t.Fatalf("check after the restart: %+v", res.Check)
			}
			// Transactions committed after the server came back.
			var lastRestored time.Time
			for _, o := range res.Outages {
				if o.Restored.After(lastRestored) {
					lastRestored = o.Restored
				}
			}
			var after int64
			for _, p := range res.Series.Points {
				if res.Series.Start.Add(p.Elapsed).After(lastRestored) {
					after += p.Counts[0]
				}
			}
			if after == 0 {
				t.Errorf("no transaction committed after the server came back at %s", lastRestored.Sub(res.Start))
			}
			var out bytes.Buffer
			res.WriteSummary(&out)
			if !strings.Contains(out.String(), "connection outages:") {
				t.Errorf("the summary does not report the outages:\n%s", out.String())
			}
		})
	}
}
