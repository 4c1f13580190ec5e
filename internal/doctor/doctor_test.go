package doctor_test

import (
	"context"
	"errors"
	"github.com/pgoltp/pgoltp/internal/field"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/doctor"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// TestDoctorOnMisconfiguredServer gives the managed cluster a tiny
// max_wal_size, writes a few hundred MB of WAL, and updates an indexed column
// (no HOT possible): the doctor must report requested checkpoints as a
// problem with a max_wal_size fix, and the non-HOT table, each with evidence.
func TestDoctorOnMisconfiguredServer(t *testing.T) {
	c := pgtest.Cluster(t)
	conn, dsn := pgtest.Conn(t)
	ctx := context.Background()
	live, major, err := settings.ReadServer(ctx, conn, "max_wal_size", "checkpoint_timeout")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = c.Apply(context.Background(), map[string]string{"max_wal_size": live["max_wal_size"].Value(), "checkpoint_timeout": live["checkpoint_timeout"].Value()})
	})
	if _, err := c.Apply(ctx, map[string]string{"max_wal_size": "32MB", "checkpoint_timeout": "1h"}); err != nil {
		t.Fatal(err)
	}
	reset := "SELECT pg_stat_reset_shared('bgwriter')"
	if major >= 17 {
		reset = "SELECT pg_stat_reset_shared('checkpointer')"
	}
	for _, q := range []string{
		reset,
		"CREATE TABLE filler (id int, pad text)",
		"INSERT INTO filler SELECT g, repeat('x', 100) FROM generate_series(1, 1500000) g", // ~250MB of WAL
		"CREATE TABLE churn (id int PRIMARY KEY, v int NOT NULL)",
		"CREATE INDEX ON churn (v)",
		"INSERT INTO churn SELECT g, 0 FROM generate_series(1, 2000) g",
		"UPDATE churn SET v = v + 1", // every update changes an indexed column: none can be HOT
		"SELECT pg_stat_force_next_flush()",
	} {
		if strings.Contains(q, "force_next_flush") && major < 15 {
			continue
		}
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Before 15 the statistics collector receives counts asynchronously: wait for them.
	for i := 0; i < 100; i++ {
		var n int64
		_, _ = conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()")
		if err := conn.QueryRow(ctx, "SELECT coalesce(sum(n_tup_upd), 0)::bigint FROM pg_stat_user_tables WHERE relname = 'churn'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n >= 2000 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Checkpoints requested by WAL volume are counted once they complete.
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	// A workload to sample wait events from while the doctor looks.
	ledger := ledger.Ledger{Clients: 3, Accounts: 1000}
	if err := ledger.Prepare(ctx, dsn, nil); err != nil {
		t.Fatal(err)
	}
	running := make(chan error, 1)
	go func() {
		_, err := ledger.Run(ctx, dsn, workload.RunOptions{Duration: 3 * time.Second})
		running <- err
	}()
	time.Sleep(500 * time.Millisecond)
	d, err := doctor.Doctor(ctx, conn, doctor.DoctorOptions{OS: true, Sample: time.Second})
	if err := <-running; err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = d.WriteText(&text)
	t.Log("\n" + text.String())
	byID := map[string]doctor.Finding{}
	for _, f := range d.Findings {
		byID[f.ID] = f
		if f.Evidence == "" || f.Confidence == "" || f.Severity == "" || (f.Severity != doctor.SeverityOK && (f.Why == "" || f.Fix == "")) {
			t.Errorf("finding %s is incomplete: %+v", f.ID, f)
		}
	}
	cp := byID["checkpoints-requested"]
	if cp.Severity != doctor.SeverityProblem || !strings.Contains(cp.Fix, "max_wal_size") || !strings.Contains(cp.Evidence, "32MB") {
		t.Errorf("requested checkpoints not diagnosed: %+v", cp)
	}
	hot := byID["hot-updates"]
	if hot.Severity != doctor.SeverityWarning || !strings.Contains(hot.Evidence, "churn") {
		t.Errorf("non-HOT updates not diagnosed: %+v", hot)
	}
	if w := byID["wait-events"]; w.Title == "no active backends while sampling" || !strings.Contains(w.Evidence, "samples of") {
		t.Errorf("wait events not sampled from the running workload: %+v", w)
	}
	if !d.Local {
		t.Error("the managed cluster runs on this host: OS checks must apply")
	}
	for _, id := range []string{"huge-pages", "thp", "dirty-writeback", "overcommit"} {
		if _, ok := byID[id]; !ok {
			t.Errorf("OS check %s missing", id)
		}
	}
}

// TestDoctorOptionsValidate: a sample out of range is a field error that
// names the field and its range, not a flag.
func TestDoctorOptionsValidate(t *testing.T) {
	err := doctor.DoctorOptions{Sample: 2 * time.Hour}.Validate()
	var f *field.Error
	if !errors.As(err, &f) || f.Field != "Sample" || !strings.Contains(err.Error(), "between 0 and 1h") || strings.Contains(err.Error(), "--") {
		t.Errorf("sample of 2h: %v", err)
	}
	if err := (doctor.DoctorOptions{Sample: time.Second}).Validate(); err != nil {
		t.Errorf("sample of 1s: %v", err)
	}
}
