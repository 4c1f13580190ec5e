package pgtest

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMachineWideExcludesCommandOutput: while a test changes the machine,
// another test's command waits for it to end; the machine-wide test's own
// commands do not wait.
func TestMachineWideExcludesCommandOutput(t *testing.T) {
	granted := make(chan time.Time, 1)
	var ended time.Time
	t.Run("changes the machine", func(t *testing.T) {
		MachineWide(t)
		CommandOutput(t)() // its own command: no wait
		f, err := os.Open(machineLockPath)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer f.Close()
			if unix.Flock(int(f.Fd()), unix.LOCK_SH) == nil {
				granted <- time.Now()
			}
		}()
		time.Sleep(300 * time.Millisecond)
		if len(granted) > 0 {
			t.Fatal("a shared hold was granted while the machine-wide test ran")
		}
		ended = time.Now()
	})
	select {
	case at := <-granted:
		if at.Before(ended) {
			t.Errorf("shared hold granted at %v, before the machine-wide test ended at %v", at, ended)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the shared hold was never granted after the machine-wide test ended")
	}
}
