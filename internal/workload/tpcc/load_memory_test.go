package tpcc

import (
	"io"
	"runtime"
	"testing"
	"time"
)

// TestLoadUnitsStaySmall: a load holds all its units (six per warehouse) from
// start to end, so what each keeps must be small and must not stay big after
// it streamed: 2,000 warehouses' units retain under 1.5 KB per warehouse (they
// kept two 3,000-entry arrays each, 7 KB, and orders' 24 KB permutation after
// streaming), and a streamed orders or order_line unit drops its buffers.
func TestLoadUnitsStaySmall(t *testing.T) {
	const w = 2000
	pop := &population{seed: 1, warehouses: w, c: NewLoadConstants(NewRand(1)), now: newTimestampField(time.Now())}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	units := pop.units()
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / w
	t.Logf("%d bytes per warehouse", per)
	if per > 1500 {
		t.Errorf("the units of %d warehouses retain %d bytes per warehouse, want at most 1,500", w, per)
	}
	orders, lines := pop.orderRows(7), pop.orderLineRows(7)
	for _, u := range []rowSource{orders, lines} {
		if _, err := io.Copy(io.Discard, newCopySource(u, true, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if orders.perm != nil || orders.cnt != nil || lines.cnt != nil {
		t.Error("a streamed orders or order_line unit keeps its district buffers")
	}
	runtime.KeepAlive(units)
}
