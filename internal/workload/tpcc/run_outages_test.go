package tpcc

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/driver"
)

// TestManyOutagesSummarised terminates every backend of a run on 24
// connections twice: the summary and the stored notes describe the real
// losses (more than driver.OutageLinesMax) in a few lines of totals, gap
// quantiles and the longest gaps, not one line per connection.
func TestManyOutagesSummarised(t *testing.T) {
	t.Parallel()
	dsn := loadForRun(t, 1)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 2 {
			time.Sleep(1500 * time.Millisecond)
			_, _ = admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE application_name = 'pgoltp tpcc run' AND datname = current_database()`)
		}
	}()
	res, err := Run(ctx, dsn, RunOptions{Path: PathClient, Conns: 24, Terminals: 24, Duration: 5 * time.Second, Seed: 4})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outages) <= driver.OutageLinesMax {
		t.Fatalf("%d outages: the test needs more than %d", len(res.Outages), driver.OutageLinesMax)
	}
	conns := map[int]bool{}
	for _, o := range res.Outages {
		conns[o.Conn] = true
	}
	var b strings.Builder
	if err := res.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	summary := b.String()
	head := fmt.Sprintf("%d connection losses on %d connections between ", len(res.Outages), len(conns))
	if !strings.Contains(summary, head) || !strings.Contains(summary, "; gaps min ") {
		t.Errorf("the summary lacks %q and the gaps:\n%s", head, summary)
	}
	if n := strings.Count(summary, " lost at "); n > 3 {
		t.Errorf("the summary lists %d outages of %d one by one:\n%s", n, len(res.Outages), summary)
	}
	lines := driver.OutageLines(res.Outages)
	// The second line is the commonest error: the server's termination, or
	// (on a loaded host, where a client writes before it reads the FATAL)
	// the broken pipe or reset it leaves.
	if len(lines) > 5 || len(lines) < 2 || !strings.HasPrefix(lines[0], head) || !strings.Contains(lines[1], " of them (") ||
		!(containsAny(lines[1:2], "terminating connection") || containsAny(lines[1:2], "broken pipe") || containsAny(lines[1:2], "connection reset")) {
		t.Errorf("outage lines %q", lines)
	}
	notes := strings.Join(res.notes(), "\n")
	if !strings.Contains(notes, head) {
		t.Errorf("the stored notes lack the outage summary:\n%s", notes)
	}
}
