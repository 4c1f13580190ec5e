package pgbench

import (
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgbench/lang"
)

// TestThrottlePastEndFinishesOneClient: a -R slot after -T's end finishes
// the client that drew it, as in pgbench, and leaves the others running.
func TestThrottlePastEndFinishesOneClient(t *testing.T) {
	e := &engine{o: &Options{Rate: 10, Jobs: 1}, start: time.Now(), throttleDelay: 1e5}
	e.endUs = 1
	th := &thread{streams: lang.ThreadStreams{Throttle: lang.NewPRNG(1)}, trigger: 1000}
	c := &client{e: e, thread: th}
	_, skip, finished := c.throttle()
	if skip || !finished {
		t.Fatalf("skip %v finished %v, want a finished client", skip, finished)
	}
	if e.stop.Load() {
		t.Error("the run was stopped for every client")
	}
}
