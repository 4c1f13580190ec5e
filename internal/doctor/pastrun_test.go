package doctor_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/doctor"
	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/store"
)

// TestPastRunFrom digests a stored run's samples the way the advisor and the
// doctor use them.
func TestPastRunFrom(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := &store.Run{ID: "r1", Workload: "tpcb", StartedAt: t0, EndedAt: t0.Add(60 * time.Second), Samples: &collect.Samples{
		Points: []collect.Point{
			{Metric: "pg.wal.mb_per_s", Value: 10}, {Metric: "pg.wal.mb_per_s", Value: 30},
			{Metric: "pg.wal.records_per_s", Value: 1000}, {Metric: "pg.wal.fpi_per_s", Value: 200},
			{Metric: "pg.buffers.backend_per_s", Value: 50}, {Metric: "pg.buffers.checkpointer_per_s", Value: 50},
		},
		Events: []collect.Event{{Kind: "checkpoint", Detail: "requested checkpoint finished"}, {Kind: "checkpoint", Detail: "timed checkpoint finished"}},
		Waits:  []collect.Wait{{Type: "IO", Event: "WALSync", Samples: 80}, {Type: "CPU", Event: "running", Samples: 20}},
		Tables: []collect.Table{{Name: "pgbench_accounts", Updates: 5000, HotUpdates: 500}},
	}}
	p, ok := advise.PastRunFrom(run)
	if !ok {
		t.Fatal("samples not found")
	}
	if p.WALBytesPerSecond != 20e6 || p.WALPeakPerSecond != 30e6 || math.Abs(p.FPIShare-0.2) > 1e-9 || p.BackendWriteShare != 0.5 ||
		p.CheckpointsRequested != 1 || p.CheckpointsTimed != 1 || p.Seconds != 60 {
		t.Fatalf("digest: %+v", p)
	}
	a, err := advise.Advise(advise.AdviseInput{Host: host.Host{RAM: 16 << 30, CPUs: 8, Storage: host.StorageSSD}, Major: 17, WALBytesPerSecond: p.WALBytesPerSecond})
	if err != nil {
		t.Fatal(err)
	}
	// 20MB/s × 900s × 1.9 × 1.25 = 42.75GB → 40GiB rounded up to whole GiB.
	if got := a.Settings()["max_wal_size"]; got != "40GB" {
		t.Errorf("max_wal_size from the run = %s", got)
	}
	if _, ok := advise.PastRunFrom(&store.Run{ID: "bare"}); ok {
		t.Error("a run without samples has no evidence")
	}
}

func TestRunFindingsThroughDoctorText(t *testing.T) {
	p := advise.PastRun{ID: "r1", Seconds: 60, CheckpointsRequested: 2, FPIShare: 0.3, BackendWriteShare: -1,
		Waits: []collect.Wait{{Type: "IO", Event: "WALSync", Samples: 80}, {Type: "CPU", Event: "running", Samples: 20}}}
	d := &doctor.Diagnosis{Server: "PostgreSQL test", Findings: doctor.RunFindings(p)}
	var b strings.Builder
	_ = d.WriteText(&b)
	for _, want := range []string{"forced checkpoints", "advise --run r1", "full-page images", "IO:WALSync", "commit_delay"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("run findings lack %q:\n%s", want, b.String())
		}
	}
}
