package recorder_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
)

// TestGroupPartsWithDifferentDurationsAreRefused: two TPC-B parts of one
// group, the second with another --duration, meet at the barrier: the
// second is refused with one line naming the duration, before anything is
// stored (before, both ran and were merged into one "complete" result).
func TestGroupPartsWithDifferentDurationsAreRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	if _, err := tpcb.Load(ctx, dsn, tpcb.LoadOptions{Scale: 2}); err != nil {
		t.Fatal(err)
	}
	lab := t.TempDir()
	part := func(k int, d time.Duration) (*tpcb.Workload, recorder.Options) {
		p := workload.Part{K: k, N: 2}
		w := &tpcb.Workload{Options: tpcb.RunOptions{Clients: 1, Duration: d, Part: p}}
		return w, recorder.Options{Lab: lab, Group: group.Options{Name: "g", Part: p, Timeout: time.Minute}}
	}
	ctx1, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	w1, o1 := part(1, 2*time.Second)
	go func() { _, err := recorder.Run(ctx1, dsn, w1, o1); done <- err }()

	st, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, parts, err := st.Group(ctx, "g"); err == nil && len(parts) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("part 1 never registered")
		}
	}

	w2, o2 := part(2, 3*time.Second)
	_, err = recorder.Run(ctx, dsn, w2, o2)
	if problem.ExitCode(err) != problem.ExitBadInput || err == nil || !strings.Contains(err.Error(), "duration 3s") ||
		!strings.Contains(err.Error(), "duration 2s") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("part 2 with another duration: %v (exit %d), want one line naming both durations, exit 2", err, problem.ExitCode(err))
	}
	cancel()
	<-done
	if list, err := st.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("runs stored: %+v (%v), want none", list, err)
	}
}
