package e2e_test

import (
	"testing"
	"time"
)

// TestLoadsRefusedOnASmallManagedDisk: loads far bigger than any disk
// (10 PB of TPC-C, 3 PB of TPC-B) onto the managed cluster are refused
// before they start, on one line naming the sizes and the fix, exit 2.
// Out-of-range values are refused before any server is touched.
func TestLoadsRefusedOnASmallManagedDisk(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	if r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab); r.code != 0 {
		t.Fatalf("cluster up: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--lab", lab, "tpcc", "load", "--warehouses", "100000000"),
		"100000000 warehouses", "10 PB", "free", "--warehouses")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--lab", lab, "tpcb", "load", "--scale", "200000000"),
		"scale 200000000", "3.2 PB", "free", "--scale")
	assertOneLineProblem(t, runPgoltp(t, time.Minute, "--dsn", "postgres://u@127.0.0.1:1/x", "quickstart", "--warehouses", "99999999999"),
		"--warehouses")
}
