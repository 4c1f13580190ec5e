package tpcb

import (
	"context"
	"runtime"
	"testing"
)

// Long runs must keep memory flat: the hot path allocates nothing per
// transaction; only the per-interval series and snapshots grow, with time.
func TestRunAllocatesNothingPerTransaction(t *testing.T) {
	dsn := loadedDatabase(t)
	mallocs := func(perClient int) (uint64, int64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := Run(context.Background(), dsn, RunOptions{Clients: 2, Jobs: 1, Transactions: perClient, Protocol: ProtocolPrepared,
			Script: ScriptSelectOnly, NoCheck: true, NoVacuum: true})
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs, res.Committed
	}
	small, n1 := mallocs(200)
	large, n2 := mallocs(3000)
	perTxn := float64(int64(large)-int64(small)) / float64(n2-n1)
	t.Logf("%d mallocs for %d transactions, %d for %d: %.3f per extra transaction", small, n1, large, n2, perTxn)
	if perTxn > 1 {
		t.Errorf("%.2f allocations per transaction: memory would grow with a long run", perTxn)
	}
}
