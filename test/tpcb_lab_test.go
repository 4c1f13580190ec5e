package e2e_test

import (
	"testing"
	"time"
)

// tpcbLab is a new lab whose managed cluster holds TPC-B at scale 1,
// destroyed when the test ends; pg runs pgoltp on it, and ok fails the test
// unless a command exited 0 (what names the command).
func tpcbLab(t *testing.T) (lab string, pg func(timeout time.Duration, args ...string) result, ok func(r result, what string) result) {
	t.Helper()
	lab = labDir(t)
	pg = func(timeout time.Duration, args ...string) result {
		return runPgoltp(t, timeout, append([]string{"--lab", lab}, args...)...)
	}
	ok = func(r result, what string) result {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", what, r.code, r.stderr)
		}
		return r
	}
	ok(pg(5*time.Minute, "tpcb", "load", "--scale", "1"), "tpcb load")
	t.Cleanup(func() { runPgoltp(t, 2*time.Minute, "cluster", "destroy", "--lab", lab) })
	return lab, pg, ok
}
