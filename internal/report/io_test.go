package report

import (
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
)

// TestIOPictureSumsTheMeasuredInterval: the I/O paragraph counts only the
// measured interval's ticks (the ramp-up's cold reads left out), sums the
// disks of one tick, and says when the data is larger than memory.
func TestIOPictureSumsTheMeasuredInterval(t *testing.T) {
	start := time.Date(2026, 11, 27, 18, 0, 0, 0, time.UTC)
	from, to := start.Add(10*time.Second), start.Add(20*time.Second)
	var pts []collect.Point
	for s := 1; s <= 25; s++ {
		at := start.Add(time.Duration(s) * time.Second)
		read, hit, iowait := 400.0, 9600.0, 5.0 // measured: 4 reads per transaction, 96% hits
		if at.Before(from) || !at.Before(to) {
			read, hit, iowait = 5000, 5000, 60 // ramp-up and after: cold, not measured
		}
		pts = append(pts,
			collect.Point{At: at, Metric: "pg.xact.commits_per_s", Value: 90},
			collect.Point{At: at, Metric: "pg.xact.rollbacks_per_s", Value: 10},
			collect.Point{At: at, Metric: "pg.blks.read_per_s", Value: read},
			collect.Point{At: at, Metric: "pg.blks.hit_per_s", Value: hit},
			collect.Point{At: at, Metric: "os.cpu.iowait_pct", Value: iowait},
			collect.Point{At: at, Metric: "os.disk.read_mb_per_s", Key: "vda", Value: 30},
			collect.Point{At: at, Metric: "os.disk.read_mb_per_s", Key: "vdb", Value: 10},
			collect.Point{At: at, Metric: "os.disk.read_iops", Key: "vda", Value: 1000},
			collect.Point{At: at, Metric: "os.disk.read_iops", Key: "vdb", Value: 200})
	}
	s := &collect.Samples{Points: pts, Facts: []collect.Fact{
		{Scope: "server", Name: "database_size_before", Value: "40000000000"},
		{Scope: "server", Name: "database_size_after", Value: "47244640256"}, // 44 GiB
		{Scope: "os", Name: "memory", Value: "22 GiB"},
	}}
	io := newIOPicture(s, from, to)
	if io == nil {
		t.Fatal("no I/O picture from a run with samples")
	}
	near := func(name string, got, want float64) {
		if got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("reads per transaction", io.ReadsPerTxn, 4)
	near("hit ratio", io.HitRatioPct, 96)
	near("iowait", io.IowaitPct, 5)
	near("disk MB/s (two disks)", io.DiskReadMBs, 40)
	near("disk IO/s (two disks)", io.DiskReadIOs, 1200)
	text := io.Text()
	for _, want := range []string{"the database (44 GiB) is larger than memory (2.00× its 22 GiB)",
		"4.0 blocks read per transaction", "hit ratio 96.00%", "disk reads 40.0 MB/s (1200 IO/s)", "I/O wait 5.0%"} {
		if !strings.Contains(text, want) {
			t.Errorf("I/O paragraph lacks %q:\n%s", want, text)
		}
	}

	// A run stored before pg.blks.hit_per_s: the mean of the per-tick ratios.
	old := &collect.Samples{Points: []collect.Point{
		{At: from, Metric: "pg.blks.hit_ratio_pct", Value: 90},
		{At: from.Add(time.Second), Metric: "pg.blks.hit_ratio_pct", Value: 100},
	}}
	if io := newIOPicture(old, from, to); io == nil || io.HitRatioPct != 95 || strings.Contains(io.Text(), "blocks read") {
		t.Errorf("old run: %+v", io)
	}
	if newIOPicture(&collect.Samples{}, from, to) != nil || newIOPicture(nil, from, to) != nil {
		t.Error("an I/O picture without samples")
	}
}
