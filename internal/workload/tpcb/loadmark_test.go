package tpcb

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// cancelDuring cancels a load shortly after it logs the start of step: in
// the middle of that step, as a kill would.
type cancelDuring struct {
	step   string
	after  time.Duration
	cancel context.CancelFunc
	once   sync.Once
}

func (c *cancelDuring) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte(c.step+"...")) {
		c.once.Do(func() { time.AfterFunc(c.after, c.cancel) })
	}
	return len(p), nil
}

// interruptedLoad loads dsn and cancels the load in the middle of its COPY.
func interruptedLoad(t *testing.T, dsn string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &cancelDuring{step: "generate data", after: 300 * time.Millisecond, cancel: cancel}
	if _, err := Load(ctx, dsn, LoadOptions{Scale: 10, Jobs: 3, Log: log}); err == nil {
		t.Fatal("the load was not interrupted: cancel it earlier")
	}
}

// TestInterruptedLoadRefusesToRun: a load stopped in the middle of its COPY
// leaves tables that run and check refuse, naming the fix; a complete load
// over them runs and passes its check. (Before the load's mark, the run went
// ahead on the half-filled tables.)
func TestInterruptedLoadRefusesToRun(t *testing.T) {
	t.Parallel()
	dsn := pgtestDatabase(t)
	interruptedLoad(t, dsn)
	bg := context.Background()
	_, err := Run(bg, dsn, RunOptions{Clients: 1, Transactions: 10})
	if !errors.Is(err, ErrIncompleteLoad) {
		t.Fatalf("run on an interrupted load: %v, want ErrIncompleteLoad", err)
	}
	if !strings.Contains(err.Error(), "load again") || strings.Contains(err.Error(), "\n") {
		t.Errorf("run on an interrupted load says %q, want one line naming the fix (the command makes it exit 2)", err)
	}
	if _, err := Check(bg, dsn, CheckOptions{ExpectHistory: -1}); !errors.Is(err, ErrIncompleteLoad) {
		t.Errorf("check on an interrupted load: %v, want ErrIncompleteLoad", err)
	}
	if _, err := Scale(bg, dsn); !errors.Is(err, ErrIncompleteLoad) {
		t.Errorf("scale of an interrupted load: %v, want ErrIncompleteLoad", err)
	}

	if _, err := Load(bg, dsn, LoadOptions{Scale: 1}); err != nil {
		t.Fatal(err)
	}
	res, err := Run(bg, dsn, RunOptions{Clients: 2, Transactions: 20})
	if err != nil {
		t.Fatalf("run on a complete load: %v", err)
	}
	if res.Scale != 1 || res.Check == nil || !res.Check.OK {
		t.Errorf("run on a complete load: scale %d, check %+v", res.Scale, res.Check)
	}
}

// TestPgbenchInitAfterInterruptedLoadRuns: pgbench -i over an interrupted
// load makes tables without pgoltp's mark, which run as any pgbench-made
// tables do.
func TestPgbenchInitAfterInterruptedLoadRuns(t *testing.T) {
	t.Parallel()
	pgbench := pgtest.Pgbench(t)
	dsn := pgtestDatabase(t)
	interruptedLoad(t, dsn)
	if out, err := exec.Command(pgbench, "-i", "-q", "-s", "1", dsn).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	res, err := Run(context.Background(), dsn, RunOptions{Clients: 2, Transactions: 20})
	if err != nil {
		t.Fatalf("run after pgbench -i: %v", err)
	}
	if res.Scale != 1 || res.Check == nil || !res.Check.OK {
		t.Errorf("run after pgbench -i: scale %d, check %+v", res.Scale, res.Check)
	}
}
