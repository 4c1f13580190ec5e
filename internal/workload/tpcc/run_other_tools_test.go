package tpcc

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestOtherToolsFromServerCounters: HammerDB's NOPM and TPM come from the
// server's counters over the measured interval (Σ d_next_o_id, and
// Σ xact_commit + xact_rollback of pg_stat_database), BenchmarkSQL's from
// the terminals' counts since their start; on a real server they agree with
// what the run itself counted and with the counters read around it.
func TestOtherToolsFromServerCounters(t *testing.T) {
	dsn := loadForRun(t, 1)
	ctx := context.Background()
	cfg, err := ConnConfig(dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	before, err := readServerCounters(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, dsn, RunOptions{Path: PathServer, Conns: 2, Duration: 4 * time.Second, Ramp: time.Second, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // the backends flush their statistics within a second
	after, err := readServerCounters(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	o, minutes := res.Others, res.Measured.Minutes()
	if o.HammerDBNote != "" || minutes <= 0 {
		t.Fatalf("no HammerDB figures: %q, measured %v", o.HammerDBNote, res.Measured)
	}
	newOrders := o.HammerDBEnd.NextOrderIDs - o.HammerDBStart.NextOrderIDs
	xacts := o.HammerDBEnd.Transactions - o.HammerDBStart.Transactions
	if math.Abs(o.HammerDBNOPM-float64(newOrders)/minutes) > 1e-6 || math.Abs(o.HammerDBTPM-float64(xacts)/minutes) > 1e-6 {
		t.Errorf("HammerDB NOPM %.1f TPM %.1f are not the counters' deltas %d, %d per %.3f min", o.HammerDBNOPM, o.HammerDBTPM, newOrders, xacts, minutes)
	}
	// Every committed New-Order took one order id; the window's edges differ
	// by the transactions in flight.
	if committed := res.NOPM * minutes; math.Abs(float64(newOrders)-committed) > 0.05*committed+5 {
		t.Errorf("d_next_o_id advanced %d in the window, the run committed %.0f New-Orders", newOrders, committed)
	}
	// On the server path each transaction is one server transaction (a
	// queued Delivery is one more when it runs); the window is most of the
	// time between the outer reads. The backends report their counts up to
	// a second late, a quarter of this window: hence the wide bounds.
	ran := res.TpmTotal*minutes + float64(res.Txn("delivery_deferred").Count)
	if float64(xacts) < 0.5*ran || float64(xacts) > 1.5*ran+20 {
		t.Errorf("server transactions in the window %d, the run's %.0f", xacts, ran)
	}
	if outer := after.Transactions - before.Transactions; xacts > outer || float64(xacts) < 0.5*float64(outer) {
		t.Errorf("server transactions in the window %d, around the whole run %d", xacts, outer)
	}
	// BenchmarkSQL counts from the terminals' start, ramp-up included: the
	// same rate, give or take the ramp-up's.
	if o.BenchmarkSQLTpmC <= 0 || math.Abs(o.BenchmarkSQLTpmC-res.TpmC) > 0.5*res.TpmC ||
		math.Abs(o.BenchmarkSQLTpmTotal-res.TpmTotal) > 0.5*res.TpmTotal {
		t.Errorf("BenchmarkSQL tpmC %.1f tpmTOTAL %.1f, the run's %.1f %.1f", o.BenchmarkSQLTpmC, o.BenchmarkSQLTpmTotal, res.TpmC, res.TpmTotal)
	}
	var b bytes.Buffer
	if err := res.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "HammerDB NOPM") || !strings.Contains(b.String(), "BenchmarkSQL 5.0 tpmC") {
		t.Errorf("the summary lacks the other tools' figures:\n%s", b.String())
	}
	t.Logf("server transactions: window %d, around the run %d; the run's %.0f", xacts, after.Transactions-before.Transactions, ran)
	t.Logf("tpmC %.0f NOPM %.0f tpmTOTAL %.0f; HammerDB NOPM %.0f TPM %.0f; BenchmarkSQL tpmC %.0f tpmTOTAL %.0f",
		res.TpmC, res.NOPM, res.TpmTotal, o.HammerDBNOPM, o.HammerDBTPM, o.BenchmarkSQLTpmC, o.BenchmarkSQLTpmTotal)
}
