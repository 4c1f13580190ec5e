package group

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

func TestMain(m *testing.M) {
	if os.Getenv("PGOLTP_GROUP_CHILD") != "" {
		joinAndHang() // the part TestPartDeadAtBarrierFailsFast kills
		return
	}
	os.Exit(pgtest.Run(m))
}

// stores gives the two places a group can meet: the lab's SQLite file
// (parts on this machine) and a PostgreSQL results database.
func stores(t *testing.T) map[string]Options {
	return map[string]Options{
		"sqlite":   {Lab: t.TempDir()},
		"postgres": {ResultsDSN: pgtest.NewDatabase(t)},
	}
}

// TestBarrierStartsPartsTogether: two parts with their own store handles
// join a few hundred milliseconds apart; neither starts before the second
// has registered, both get the same agreed start, and exactly one of them
// runs the group's consistency check.
func TestBarrierStartsPartsTogether(t *testing.T) {
	for name, where := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var (
				wg            sync.WaitGroup
				mu            sync.Mutex
				joined2       time.Time
				started       [2]time.Time
				localStarts   [2]time.Time
				checks        int
				errs          []error
				skewsReported []time.Duration
			)
			for k := 1; k <= 2; k++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if k == 2 {
						time.Sleep(400 * time.Millisecond)
					}
					o := where
					o.Name, o.Part, o.Lead, o.Timeout = "g1", workload.Part{K: k, N: 2}, 500*time.Millisecond, time.Minute
					m, err := Join(ctx, o, "tpcc", fmt.Sprintf("run-%d", k))
					if k == 2 {
						mu.Lock()
						joined2 = time.Now()
						mu.Unlock()
					}
					if err == nil {
						defer m.Close()
						err = m.WaitAll(ctx)
					}
					if err == nil {
						err = m.Gate(ctx)
					}
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						errs = append(errs, err)
						return
					}
					started[k-1], localStarts[k-1] = time.Now(), m.LocalStart()
					skewsReported = append(skewsReported, m.Skew())
					mu.Unlock()
					check, note := m.Finished(ctx, store.Complete)
					mu.Lock()
					if check {
						checks++
					}
					if !strings.Contains(note, "consistency check") {
						errs = append(errs, fmt.Errorf("part %d: note %q does not say who checks", k, note))
					}
				}()
			}
			wg.Wait()
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			for k, s := range started {
				if s.Before(joined2) {
					t.Errorf("part %d started at %s, before part 2 registered at %s", k+1, s.Format("15:04:05.000"), joined2.Format("15:04:05.000"))
				}
			}
			// Both parts run on this machine: their skews to the store are
			// the same within the round trip, so the agreed start reads
			// the same on both clocks.
			if d := localStarts[0].Sub(localStarts[1]).Abs(); d > 50*time.Millisecond {
				t.Errorf("agreed start differs by %s between the parts (skews %v)", d, skewsReported)
			}
			if checks != 1 {
				t.Errorf("%d parts ran the consistency check, want exactly 1", checks)
			}
			st, err := store.Open(ctx, where.Lab, where.ResultsDSN)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			g, parts, err := st.Group(ctx, "g1")
			if err != nil {
				t.Fatal(err)
			}
			if g.Start.IsZero() || g.CheckedBy == 0 || len(parts) != 2 {
				t.Fatalf("group after the run: %+v with %d parts", g, len(parts))
			}
			for _, p := range parts {
				if p.Status != string(store.Complete) {
					t.Errorf("part %d status %q, want complete", p.Part, p.Status)
				}
			}
		})
	}
}

// TestBarrierTimeoutNamesMissingParts: a part alone gives up after the
// timeout with one line naming the parts that never came.
func TestBarrierTimeoutNamesMissingParts(t *testing.T) {
	for name, where := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			o := where
			o.Name, o.Part, o.Timeout = "lonely", workload.Part{K: 2, N: 3}, 600*time.Millisecond
			m, err := Join(ctx, o, "tpcb", "run-x")
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			err = m.WaitAll(ctx)
			if !errors.Is(err, ErrBarrier) || !strings.Contains(err.Error(), "part 1, 3 of 3") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line naming parts 1 and 3", err)
			}
		})
	}
}

// TestLatePartIsRecordedAndRefused: a process for a part whose first
// process died arrives after the group started: it is refused, and the
// group's part says so.
func TestLatePartIsRecordedAndRefused(t *testing.T) {
	ctx := context.Background()
	where := Options{Lab: t.TempDir()}
	st, err := store.Open(ctx, where.Lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	host, _ := os.Hostname()
	now := time.Now()
	// Part 2 registered from another machine.
	if _, _, err := st.JoinGroup(ctx, store.Group{Name: "g", Workload: "tpcc", Parts: 2, Created: now},
		store.GroupPart{Part: 2, RunID: "gone", Owner: "elsewhere:1", Status: StatusWaiting, Joined: now, Heartbeat: now}); err != nil {
		t.Fatal(err)
	}
	o := where
	o.Name, o.Part, o.Lead = "g", workload.Part{K: 1, N: 2}, 200*time.Millisecond
	m, err := Join(ctx, o, "tpcc", "run-1")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.WaitAll(ctx); err != nil {
		t.Fatal(err)
	}
	// Part 2 dies there (its heartbeat stops), and a new process for it
	// comes after the start.
	if err := st.GroupHeartbeat(ctx, "g", 2, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	o.Part = workload.Part{K: 2, N: 2}
	if _, err := Join(ctx, o, "tpcc", "run-2"); !errors.Is(err, ErrLate) {
		t.Fatalf("late part: error %v, want ErrLate", err)
	}
	_, parts, err := st.Group(ctx, "g")
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || !strings.Contains(parts[1].Note, "after the start and was refused") {
		t.Fatalf("parts %+v: part 2 does not record the late arrival", parts)
	}
	if got := Effective(parts[1], time.Now()); got != StatusDead {
		t.Errorf("part 2 (no heartbeat for an hour) shows as %q, want %q", got, StatusDead)
	}
	// A part registered by a process of this machine that is gone is dead.
	if got := Effective(store.GroupPart{Status: StatusRunning, Owner: host + ":999999999", Heartbeat: time.Now()}, time.Now()); got != StatusDead {
		t.Errorf("a part whose process is gone shows as %q, want %q", got, StatusDead)
	}
	// A second process for a live part is a duplicate, not a late part.
	o.Part = workload.Part{K: 1, N: 2}
	if _, err := Join(ctx, o, "tpcc", "run-3"); err == nil || errors.Is(err, ErrLate) || !strings.Contains(err.Error(), "already registered") {
		t.Fatalf("duplicate part: error %v, want 'already registered'", err)
	}
}

func TestValidateName(t *testing.T) {
	for _, good := range []string{"g", "run-1", "A.b_c", strings.Repeat("x", 64)} {
		if err := ValidateName(good); err != nil {
			t.Errorf("%q refused: %v", good, err)
		}
	}
	for _, bad := range []string{"", "-x", "a b", "a/b", "é", "x;y", strings.Repeat("x", 65)} {
		if err := ValidateName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
