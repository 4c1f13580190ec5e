package advise_test

import (
	"os"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestMain stops the test cluster (pgtest) when the tests end.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
