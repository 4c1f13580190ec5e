package tpcb

import (
	"strconv"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func pgtestDatabase(t *testing.T) string { return pgtest.NewDatabase(t) }

func itoa(i int) string { return strconv.Itoa(i) }
