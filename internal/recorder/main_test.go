package recorder_test

import (
	"os"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func TestMain(m *testing.M) {
	if os.Getenv("PGOLTP_RECORD_CHILD") != "" {
		recordAndHang() // the process TestKilledRecording kills
		return
	}
	os.Exit(pgtest.Run(m))
}
