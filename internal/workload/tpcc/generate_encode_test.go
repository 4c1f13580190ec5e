package tpcc

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestNumericBinary decodes our binary numerics with pgx's own codec.
func TestNumericBinary(t *testing.T) {
	m := pgtype.NewMap()
	for _, tc := range []struct {
		v     int64
		scale int
		want  string
	}{
		{0, 2, "0"}, {1, 2, "0.01"}, {1234, 2, "12.34"}, {-1000, 2, "-10"}, {300_000_00, 2, "300000"},
		{999_999, 2, "9999.99"}, {1, 4, "0.0001"}, {2000, 4, "0.2"}, {5000, 4, "0.5"}, {50_000_00, 2, "50000"},
		{123456789012, 2, "1234567890.12"},
	} {
		b := appendNumericBinary(nil, tc.v, tc.scale)
		var n pgtype.Numeric
		if err := m.Scan(pgtype.NumericOID, pgtype.BinaryFormatCode, b[4:], &n); err != nil {
			t.Fatalf("%d/10^%d: %v", tc.v, tc.scale, err)
		}
		f, _ := n.Float64Value()
		var want pgtype.Numeric
		if err := want.Scan(tc.want); err != nil {
			t.Fatal(err)
		}
		wf, _ := want.Float64Value()
		if f.Float64 != wf.Float64 {
			t.Errorf("%d/10^%d decoded as %v, want %s", tc.v, tc.scale, f.Float64, tc.want)
		}
		if got := string(formatFixed(nil, tc.v, tc.scale)); tc.v == 1234 && got != "12.34" {
			t.Errorf("formatFixed = %q", got)
		}
	}
}
