package tpcb

import (
	"context"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// TestLoadRefusedWithoutDiskRoom: with the server's free space given (here
// 1 MB), a load that would not fit is refused before it drops the tables
// there; a reload of the same scale fits in the space of what it replaces.
func TestLoadRefusedWithoutDiskRoom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtestDatabase(t)
	if _, err := Load(ctx, dsn, LoadOptions{Scale: 1}); err != nil {
		t.Fatal(err)
	}
	oneMB := func() (int64, error) { return 1_000_000, nil }
	_, err := Load(ctx, dsn, LoadOptions{Scale: 3, FreeDisk: oneMB})
	if problem.ExitCode(err) != problem.ExitBadInput || !strings.Contains(err.Error(), "48 MB") || !strings.Contains(err.Error(), "--scale") {
		t.Fatalf("scale 3 on 1 MB free: %v (exit %d), want a refusal naming 48 MB and --scale, exit 2", err, problem.ExitCode(err))
	}
	if scale, err := Scale(ctx, dsn); scale != 1 || err != nil {
		t.Errorf("after the refusal the tables hold scale %d (%v), want the untouched scale 1", scale, err)
	}
	if _, err := Load(ctx, dsn, LoadOptions{Scale: 1, FreeDisk: oneMB}); err != nil {
		t.Errorf("reload of scale 1 on 1 MB free, replacing scale 1: %v", err)
	}
}
