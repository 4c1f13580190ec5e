package advise_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

const (
	mb = int64(1) << 20
	gb = int64(1) << 30
)

// hosts spans tiny to huge machines: the advice must stay inside
// PostgreSQL's ranges at both ends.
var hosts = []struct {
	name  string
	host  host.Host
	conns int
	wl    string
	wal   float64
}{
	{"tiny hdd", host.Host{RAM: 256 * mb, CPUs: 1, Storage: host.StorageHDD, HugePage: 2 * mb}, 0, advise.WorkloadOLTP, 0},
	{"laptop ssd", host.Host{RAM: 8 * gb, CPUs: 4, Storage: host.StorageSSD, HugePage: 2 * mb}, 50, "tpcb", 0},
	{"server nvme", host.Host{RAM: 256 * gb, CPUs: 64, Storage: host.StorageNVMe, HugePage: 2 * mb, HugePagesTotal: 40000}, 2000, "tpcc", 200 * float64(mb)},
	{"fractional cgroup", host.Host{RAM: 3 * gb / 2, CPUs: 0.5, Storage: host.StorageSSD}, 10, "tpcc", 0},
}

// TestAdviseValidatedAgainstServer validates every recommended value against
// a real server's pg_settings (min_val, max_val, enumvals) and checks every
// line has a reason and a risk class, never an unsafe one.
func TestAdviseValidatedAgainstServer(t *testing.T) {
	ctx := context.Background()
	conn, _ := pgtest.Conn(t)
	live, major, err := settings.ReadServer(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		a, err := advise.Advise(advise.AdviseInput{Host: h.host, Connections: h.conns, Workload: h.wl, HotRows: h.wl == "tpcb", Major: major, Live: live, WALBytesPerSecond: h.wal})
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		if len(a.Items) < 15 {
			t.Errorf("%s: only %d recommendations", h.name, len(a.Items))
		}
		for _, r := range a.Items {
			if err := settings.ValidateLive(live, major, r.Name, r.Value); err != nil {
				t.Errorf("%s: %v", h.name, err)
			}
			if r.Reason == "" || r.RiskText == "" || r.Risk.Unsafe() || r.Risk == settings.Unknown {
				t.Errorf("%s: %s = %s has reason %q, risk %s", h.name, r.Name, r.Value, r.Reason, r.Risk)
			}
			if want := live[r.Name].Context == settings.Postmaster; want != (r.Risk == settings.Restart) {
				t.Errorf("%s: %s risk %s, but the server's context is %s", h.name, r.Name, r.Risk, live[r.Name].Context)
			}
		}
		// The server accepts every value for real: SET LOCAL for session
		// settings (nothing persists), pg_settings ranges for the rest.
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range a.Items {
			if c := live[r.Name].Context; c == settings.User || c == settings.Superuser {
				if _, err := tx.Exec(ctx, "SELECT set_config($1, $2, true)", r.Name, r.Value); err != nil {
					t.Errorf("%s: the server rejects %s = %s: %v", h.name, r.Name, r.Value, err)
				}
			}
		}
		_ = tx.Rollback(ctx)
	}
}

// TestAdviseVersions checks the catalog-validated advice of every supported
// version: settings the version lacks are left out, io_method only on 18.
func TestAdviseVersions(t *testing.T) {
	for major := advise.OldestMajor; major <= advise.NewestMajor; major++ {
		a, err := advise.Advise(advise.AdviseInput{Host: hosts[1].host, Connections: 50, Workload: "tpcc", Major: major})
		if err != nil {
			t.Fatal(err)
		}
		got := a.Settings()
		for name, value := range got {
			if err := settings.Validate(major, name, value); err != nil {
				t.Errorf("PostgreSQL %d: %v", major, err)
			}
		}
		if _, ok := got["io_method"]; ok != (major >= 18) {
			t.Errorf("PostgreSQL %d: io_method advised = %v", major, ok)
		}
		if v := got["wal_compression"]; (major >= 15) != (v == "lz4") {
			t.Errorf("PostgreSQL %d: wal_compression = %s", major, v)
		}
		if v := got["shared_buffers"]; v != "2GB" {
			t.Errorf("PostgreSQL %d: shared_buffers = %s on 8GB, want 2GB", major, v)
		}
		if v := got["wal_buffers"]; v != "64MB" { // the WAL rule reads the memory rule's shared_buffers
			t.Errorf("PostgreSQL %d: wal_buffers = %q with 2GB of shared_buffers, want 64MB", major, v)
		}
		// jit and the fs-friendly WAL switches came in 11 and 12.
		if _, ok := got["jit"]; ok != (major >= 11) {
			t.Errorf("PostgreSQL %d: jit advised = %v", major, ok)
		}
	}
	if _, err := advise.Advise(advise.AdviseInput{Host: host.Host{RAM: 100 * mb, CPUs: 1}}); err == nil {
		t.Error("100MB of memory must be refused")
	}
	a, _ := advise.Advise(advise.AdviseInput{Host: hosts[2].host, Connections: 2000, Major: 17, WALBytesPerSecond: 100 * float64(mb)})
	// 100MB/s × 900s × 1.9 × 1.25 = 208.7GB, rounded up to whole GB.
	if got := a.Settings()["max_wal_size"]; got != fmt.Sprintf("%dGB", 209) {
		t.Errorf("max_wal_size from a measured WAL rate = %s, want 209GB", got)
	}
}

// TestMeasureWALRate samples the WAL rate while the ledger workload writes.
func TestMeasureWALRate(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	l := ledger.Ledger{Clients: 2, Accounts: 1000}
	if err := l.Prepare(ctx, dsn, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := l.Run(ctx, dsn, workload.RunOptions{Duration: 2 * time.Second})
		done <- err
	}()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rate, err := advise.MeasureWALRate(ctx, conn, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Each ledger transaction writes at least a commit record and two tuples.
	if rate < 10*1024 {
		t.Errorf("WAL rate %.0f B/s while the ledger ran", rate)
	}
}

// TestDataSizeChangesMemoryAdvice: the same machine gets different memory
// advice for data that fits in memory and data that does not (issue 32): a
// database that fits in 40% of memory is held whole in shared_buffers; one
// larger than memory keeps the 25% share, and the advice says the workload
// is I/O-bound.
func TestDataSizeChangesMemoryAdvice(t *testing.T) {
	h := host.Host{RAM: 24 << 30, CPUs: 2, Storage: host.StorageSSD}
	advice := func(data int64) (advise.Recommendation, []string) {
		a, err := advise.Advise(advise.AdviseInput{Host: h, Connections: 16, Major: 15, DataBytes: data})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range a.Items {
			if r.Name == "shared_buffers" {
				return r, a.Notes
			}
		}
		t.Fatal("no shared_buffers")
		return advise.Recommendation{}, nil
	}
	unknown, _ := advice(0)
	big, bigNotes := advice(50 << 30)
	fits, _ := advice(7 << 30)
	if unknown.Value != "6GB" || big.Value != "6GB" || fits.Value != "8960MB" {
		t.Errorf("shared_buffers: unknown data %s, 50GB of data %s, 7GB of data %s; want 6GB, 6GB, 8960MB", unknown.Value, big.Value, fits.Value)
	}
	if !strings.Contains(big.Reason, "larger than memory") || !strings.Contains(fits.Reason, "fits") {
		t.Errorf("reasons: %q / %q", big.Reason, fits.Reason)
	}
	if !strings.Contains(strings.Join(bigNotes, " "), "I/O-bound") {
		t.Errorf("notes for data larger than memory: %v", bigNotes)
	}
}

// TestDatabaseBytes reads the server's data size.
func TestDatabaseBytes(t *testing.T) {
	_, dsn := pgtest.Conn(t)
	n, err := advise.DatabaseBytes(context.Background(), dsn)
	if err != nil || n < 1<<20 {
		t.Errorf("DatabaseBytes = %d, %v; want the databases' size", n, err)
	}
}
