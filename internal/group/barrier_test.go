package group

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// joinAndHang is the child of TestPartDeadAtBarrierFailsFast: it registers
// part 2 of 3, says so, and waits at the barrier until it is killed.
func joinAndHang() {
	o := Options{Name: "deadly", Part: workload.Part{K: 2, N: 3}, Lab: os.Getenv("PGOLTP_GROUP_LAB"),
		ResultsDSN: os.Getenv("PGOLTP_GROUP_DSN"), Timeout: time.Hour}
	m, err := Join(context.Background(), o, "tpcc", "run-child")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("joined")
	_ = m.WaitAll(context.Background())
	os.Exit(1)
}

// TestPartDeadAtBarrierFailsFast: a part killed (SIGKILL) while waiting at
// the barrier is seen dead at once, as during the run: part 1 stops waiting
// with one line naming it, long before its timeout (before, it waited the
// whole timeout and called the dead part "still missing").
func TestPartDeadAtBarrierFailsFast(t *testing.T) {
	for name, where := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			o := where
			o.Name, o.Part, o.Timeout = "deadly", workload.Part{K: 1, N: 3}, time.Minute
			m, err := Join(ctx, o, "tpcc", "run-1")
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "PGOLTP_GROUP_CHILD=1", "PGOLTP_GROUP_LAB="+where.Lab, "PGOLTP_GROUP_DSN="+where.ResultsDSN)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "joined\n" {
				_ = cmd.Process.Kill()
				t.Fatalf("child: %q %v", line, err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()

			t0 := time.Now()
			err = m.WaitAll(ctx)
			if !errors.Is(err, ErrPartDied) || !strings.Contains(err.Error(), "part 2 died") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("waiting with part 2 killed: %v, want one line naming part 2 dead", err)
			}
			if d := time.Since(t0); d > 5*time.Second {
				t.Errorf("part 1 waited %s to see part 2 dead", d)
			}
		})
	}
}

// TestPartSilentAtBarrierFailsFast: a part on another machine that
// registered and stopped beating its heartbeat is dead after StaleAfter,
// as during the run.
func TestPartSilentAtBarrierFailsFast(t *testing.T) {
	ctx := context.Background()
	where := Options{Lab: t.TempDir()}
	st, err := store.Open(ctx, where.Lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	then := time.Now().Add(-StaleAfter - 5*time.Second)
	if _, _, err := st.JoinGroup(ctx, store.Group{Name: "quiet", Workload: "tpcc", Parts: 3, Created: then},
		store.GroupPart{Part: 3, RunID: "far", Owner: "elsewhere:1", Status: StatusWaiting, Joined: then, Heartbeat: then}); err != nil {
		t.Fatal(err)
	}
	o := where
	o.Name, o.Part, o.Timeout = "quiet", workload.Part{K: 1, N: 3}, time.Minute
	m, err := Join(ctx, o, "tpcc", "run-1")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	err = m.WaitAll(ctx)
	if !errors.Is(err, ErrPartDied) || !strings.Contains(err.Error(), "part 3 died (no heartbeat for 20s)") {
		t.Fatalf("waiting with part 3 silent: %v, want part 3 named dead by its heartbeat", err)
	}
}
