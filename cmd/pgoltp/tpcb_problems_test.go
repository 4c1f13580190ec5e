package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
)

func TestTPCBProblem(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
		text string
	}{
		{fmt.Errorf("reading the scale: %w", tpcb.ErrIncompleteLoad), problem.ExitBadInput, "tpcb run: " + tpcb.ErrIncompleteLoad.Error()},
		{tpcb.ErrNotLoaded, problem.ExitBadInput, "tpcb run: the pgbench tables are not loaded; run 'pgoltp tpcb load --scale N' (or pgbench -i) first"},
		{errors.New("connection reset"), problem.ExitFailed, "tpcb run: connection reset"},
	} {
		err := tpcbProblem("tpcb run", c.err)
		if problem.ExitCode(err) != c.code || err.Error() != c.text || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %q (exit %d), want %q (exit %d)", c.err, err, problem.ExitCode(err), c.text, c.code)
		}
	}
}
