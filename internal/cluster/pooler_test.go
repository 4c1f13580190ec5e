package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/field"
)

// TestPoolerWithoutBinaryIsAFieldError: --pooler pgbouncer on a machine
// without pgbouncer is the option's error (one line, exit 2 in cmd), found
// before anything is made.
func TestPoolerWithoutBinaryIsAFieldError(t *testing.T) {
	saved := pgbouncerPaths
	t.Cleanup(func() { pgbouncerPaths = saved })
	pgbouncerPaths = []string{"/nonexistent/pgbouncer"}
	t.Setenv("PATH", t.TempDir())
	err := Options{Pooler: PoolerPgBouncer}.CheckPooler()
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "Pooler" || !strings.Contains(err.Error(), "apt-get install pgbouncer") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("CheckPooler without pgbouncer: %v, want the Pooler field's one-line error", err)
	}
	if err := (Options{}).CheckPooler(); err != nil {
		t.Fatalf("no pooler asked: %v", err)
	}
}
