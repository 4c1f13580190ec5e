package advise_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/host"
)

// TestGroupCommitFollowsTheFlush: commit_delay is half the measured flush
// (PostgreSQL's documented starting point), never the storage class's guess
// when the flush was timed, and left out when a flush is cheaper than the
// kernel's shortest sleep or there are too few committers to share it.
func TestGroupCommitFollowsTheFlush(t *testing.T) {
	onHost := func(storage string, flush time.Duration) host.Host {
		return host.Host{RAM: 8 * gb, CPUs: 2, Storage: storage, Flush: flush}
	}
	cases := []struct {
		name  string
		host  host.Host
		conns int
		want  string // commit_delay, "" for none
	}{
		{"virtual disk flushing in 87µs", onHost(host.StorageSSD, 87*time.Microsecond), 8, "40"},
		{"spindle flushing in 8.3ms", onHost(host.StorageHDD, 8300*time.Microsecond), 8, "4150"},
		{"ssd, flush not measured", onHost(host.StorageSSD, 0), 8, "200"},
		{"hdd, flush not measured", onHost(host.StorageHDD, 0), 8, "1000"},
		{"nvme, flush not measured", onHost(host.StorageNVMe, 0), 8, ""},
		{"flush cheaper than a sleep", onHost(host.StorageSSD, 30*time.Microsecond), 8, ""},
		{"fewer committers than 2 per CPU", onHost(host.StorageSSD, 87*time.Microsecond), 3, ""},
	}
	for _, c := range cases {
		a, err := advise.Advise(advise.AdviseInput{Host: c.host, Connections: c.conns, Workload: "tpcc", Major: 15})
		if err != nil {
			t.Fatal(err)
		}
		got := a.Settings()
		if got["commit_delay"] != c.want {
			t.Errorf("%s: commit_delay = %q, want %q", c.name, got["commit_delay"], c.want)
		}
		if _, siblings := got["commit_siblings"]; siblings != (c.want != "") {
			t.Errorf("%s: commit_siblings advised = %v with commit_delay %q", c.name, siblings, c.want)
		}
	}
}

// TestMeasureFlush times real flushes in a directory of the test's, leaves
// nothing behind, reclasses a "rotational" disk that flushes like flash,
// and refuses a directory on another filesystem than the data.
func TestMeasureFlush(t *testing.T) {
	dir := t.TempDir()
	h := host.Host{Storage: host.StorageHDD}
	h.MeasureFlush(dir, dir)
	if h.Flush <= 0 || h.Flush > 5*time.Second {
		t.Fatalf("flush time %v; notes %q", h.Flush, h.Notes)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the probe left %d files in %s", len(left), dir)
	}
	if h.Flush < time.Millisecond && h.Storage != host.StorageSSD {
		t.Errorf("a %v flush kept storage %s, want ssd", h.Flush, h.Storage)
	}
	if h.Flush >= time.Millisecond && h.Storage != host.StorageHDD {
		t.Errorf("a %v flush changed storage to %s", h.Flush, h.Storage)
	}

	other := host.Host{Storage: host.StorageSSD}
	other.MeasureFlush(dir, "/proc") // procfs: never the test directory's filesystem
	if other.Flush != 0 || !strings.Contains(strings.Join(other.Notes, "\n"), "not on the filesystem") {
		t.Errorf("a probe on another filesystem: flush %v, notes %q", other.Flush, other.Notes)
	}
}
