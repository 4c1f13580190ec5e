package group

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

func durationParams(d string) []workload.Param {
	return []workload.Param{{Name: "isolation", Value: "read-committed"}, {Name: "duration", Value: d}}
}

// TestPartsWithDifferentParamsAreRefused: part 2 registers with another
// duration than part 1, the first registered: it is refused with one line
// naming the duration, and part 1 does not count it. Part 2 with part 1's
// duration then joins, and the group starts.
func TestPartsWithDifferentParamsAreRefused(t *testing.T) {
	for name, where := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			o := where
			o.Name, o.Lead, o.Timeout = "mixed", 200*time.Millisecond, time.Minute
			o1 := o
			o1.Part, o1.Params = workload.Part{K: 1, N: 2}, durationParams("10s")
			m1, err := Join(ctx, o1, "tpcc", "run-1")
			if err != nil {
				t.Fatal(err)
			}
			defer m1.Close()

			o2 := o
			o2.Part, o2.Params = workload.Part{K: 2, N: 2}, durationParams("20s")
			_, err = Join(ctx, o2, "tpcc", "run-2")
			if problem.ExitCode(err) != problem.ExitBadInput || err == nil ||
				!strings.Contains(err.Error(), "duration 20s") || !strings.Contains(err.Error(), "part 1 (the first registered) with duration 10s") ||
				strings.Contains(err.Error(), "\n") {
				t.Fatalf("part 2 with another duration: %v (exit %d), want one line naming the durations, exit 2", err, problem.ExitCode(err))
			}
			wctx, cancel := context.WithTimeout(ctx, time.Second)
			if err := m1.WaitAll(wctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("part 1 after part 2 was refused: %v, want it still waiting", err)
			}
			cancel()

			// Part 1 gave up on the cancelled wait; it and part 2 come back, agreeing.
			m1b, err := Join(ctx, o1, "tpcc", "run-1b")
			if err != nil {
				t.Fatal(err)
			}
			defer m1b.Close()
			o2.Params = durationParams("10s")
			m2, err := Join(ctx, o2, "tpcc", "run-2b")
			if err != nil {
				t.Fatalf("part 2 with part 1's duration: %v", err)
			}
			defer m2.Close()
			if err := m2.WaitAll(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestGroupDoesNotStartWithDifferingParams: a part seen registered before
// its own Join refused it (a moment's window) does not start the group: the
// waiting part checks that the registered parameters agree before it sets
// the start.
func TestGroupDoesNotStartWithDifferingParams(t *testing.T) {
	ctx := context.Background()
	lab := t.TempDir()
	o := Options{Lab: lab, Name: "window", Part: workload.Part{K: 1, N: 2}, Timeout: time.Minute, Params: durationParams("10s")}
	m, err := Join(ctx, o, "tpcc", "run-1")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Part 2 as its Join leaves it between registering and its own check.
	if err := st.SetGroupParams(ctx, "window", "run-2", `[{"Name":"isolation","Value":"read-committed"},{"Name":"duration","Value":"20s"}]`); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	now := time.Now()
	if _, _, err := st.JoinGroup(ctx, store.Group{Name: "window", Workload: "tpcc", Parts: 2, Created: now},
		store.GroupPart{Part: 2, RunID: "run-2", Owner: host + ":" + strconv.Itoa(os.Getpid()), Status: StatusWaiting, Joined: now, Heartbeat: now}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := m.WaitAll(wctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting with a differing part 2 present: %v, want no start", err)
	}
	if g, _, err := st.Group(ctx, "window"); err != nil || !g.Start.IsZero() {
		t.Errorf("the group started (%v, %v) with parts whose parameters differ", g.Start, err)
	}
}
