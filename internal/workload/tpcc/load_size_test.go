package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// TestLoadWarehouseRange: warehouses are checked where they are read, not by
// the int4 encoder of the first COPY.
func TestLoadWarehouseRange(t *testing.T) {
	for _, w := range []int{0, -1, MaxWarehouses + 1, 99999999999} {
		if err := (LoadOptions{Warehouses: w}).Validate(); err == nil || !strings.Contains(err.Error(), "warehouses") {
			t.Errorf("%d warehouses: %v, want a range error", w, err)
		}
	}
	for _, w := range []int{1, 100000, MaxWarehouses} {
		if err := (LoadOptions{Warehouses: w}).Validate(); err != nil {
			t.Errorf("%d warehouses: %v", w, err)
		}
	}
}

// TestLoadRefusedWithoutDiskRoom: 100000 warehouses need about 10 TB; with
// 50 GB free the load is refused before it creates anything.
func TestLoadRefusedWithoutDiskRoom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtestDatabase(t)
	free := func() (int64, error) { return 50_000_000_000, nil }
	_, err := Load(ctx, dsn, LoadOptions{Warehouses: 100000, Schemas: []string{"a", "b"}, FreeDisk: free})
	if problem.ExitCode(err) != problem.ExitBadInput {
		t.Fatalf("100000 warehouses on 50 GB: %v (exit %d), want exit 2", err, problem.ExitCode(err))
	}
	for _, want := range []string{"20 TB", "50 GB free", "--warehouses"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 1, FreeDisk: free}); err != nil {
		t.Errorf("1 warehouse on 50 GB: %v", err)
	}
}
