package tpcc

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The queue's order, on two workers whose tasks only record what they did:
// a relation's builds start only after all its COPY jobs have finished, the
// builds of a relation with nothing to load start at once, and the data
// phase's end is reported once.
func TestLoadQueueBuildsEachRelationWhenItsDataIsIn(t *testing.T) {
	jobs := []copyJob{{rel: "a", bytes: 2}, {rel: "a", bytes: 1}, {rel: "b", bytes: 1}}
	builds := []indexBuild{
		{rel: "a", sql: "a1", cost: 3}, {rel: "a", sql: "a2", cost: 1},
		{rel: "b", sql: "b1", cost: 2}, {rel: "kept", sql: "k1", cost: 1},
	}
	var mu sync.Mutex
	var events []string
	finished := map[string]int{} // COPY jobs finished per relation
	record := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	var dataDone []int
	q := newLoadQueue(jobs, builds, func(left int) { dataDone = append(dataDone, left) })
	copyTask := func(_ context.Context, _ *pgx.Conn, j *copyJob) error {
		time.Sleep(time.Duration(j.bytes) * 5 * time.Millisecond)
		mu.Lock()
		finished[j.rel]++
		mu.Unlock()
		record("copy " + j.rel)
		return nil
	}
	buildTask := func(_ context.Context, _ *pgx.Conn, b *indexBuild) error {
		mu.Lock()
		n, want := finished[b.rel], map[string]int{"a": 2, "b": 1}[b.rel]
		mu.Unlock()
		if n != want {
			t.Errorf("build %s started with %d of %s's %d COPY jobs finished", b.sql, n, b.rel, want)
		}
		record("build " + b.sql)
		return nil
	}
	if err := q.run(context.Background(), make([]*pgx.Conn, 2), copyTask, buildTask); err != nil {
		t.Fatal(err)
	}
	if len(events) != 7 {
		t.Fatalf("ran %v, want 3 COPY jobs and 4 builds", events)
	}
	if len(dataDone) != 1 {
		t.Errorf("the data phase's end reported %d times, want once", len(dataDone))
	}
	// k1 had nothing to wait for: the first task handed out.
	if events[0] != "build k1" && events[1] != "build k1" {
		t.Errorf("the kept relation's build did not start first: %v", events)
	}
}

// A failed task stops the queue: the other worker takes nothing more, and
// the error is returned.
func TestLoadQueueStopsAtTheFirstError(t *testing.T) {
	jobs := []copyJob{{rel: "a"}, {rel: "a"}, {rel: "a"}, {rel: "a"}}
	q := newLoadQueue(jobs, []indexBuild{{rel: "a", sql: "a1"}}, nil)
	boom := errors.New("boom")
	var mu sync.Mutex
	ran := 0
	copyTask := func(context.Context, *pgx.Conn, *copyJob) error {
		mu.Lock()
		defer mu.Unlock()
		ran++
		if ran == 1 {
			return boom
		}
		time.Sleep(10 * time.Millisecond)
		return nil
	}
	built := false
	buildTask := func(context.Context, *pgx.Conn, *indexBuild) error { built = true; return nil }
	if err := q.run(context.Background(), make([]*pgx.Conn, 2), copyTask, buildTask); !errors.Is(err, boom) {
		t.Fatalf("run returned %v, want the failed task's error", err)
	}
	if ran > 2 || built {
		t.Errorf("after the error: %d COPY jobs ran, built=%v; want at most the one already running", ran, built)
	}
}
