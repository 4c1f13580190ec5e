package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// flushProbe bounds the flush measurement: enough writes for a stable
// median on fast storage, and no more than a second or so on a spindle.
const (
	flushWrites  = 200
	flushMaxTime = time.Second
	flushMinimum = 10
)

// spindleFlush: a bare spinning disk cannot flush an 8kB write in less
// than about a rotation's worth of time (8 ms at 7,200 rpm). A disk that
// reports rotational=1 yet flushes in under 1 ms is virtual or sits behind
// a write cache, and is advised as SSD.
const spindleFlush = time.Millisecond

// MeasureFlush times what one commit's WAL flush costs on the storage of
// dataPath: an 8kB write to a file of its own in dir, then fdatasync, repeated
// (pg_test_fsync's "one 8kB write" test; PostgreSQL's documentation bases
// commit_delay on it). dir must be a directory pgoltp owns on the same
// filesystem as dataPath (the lab next to a managed cluster's data): the
// probe file is created there and removed. The median is kept in h.Flush,
// and a disk that says it rotates but flushes like flash is classed SSD.
func (h *Host) MeasureFlush(dir, dataPath string) {
	d, err := measureFlush(dir, dataPath)
	if err != nil {
		h.Notes = append(h.Notes, "flush time: not measured ("+err.Error()+")")
		return
	}
	h.Flush = d
	h.Notes = append(h.Notes, fmt.Sprintf("flush time: an 8kB write + fdatasync takes %s (median, in %s)", ShortDuration(d), dir))
	if h.Storage == StorageHDD && d < spindleFlush {
		h.Storage = StorageSSD
		h.Notes = append(h.Notes, fmt.Sprintf("storage: reported rotational, but a %s flush is no bare spinning disk (virtual disk or write cache): advised as ssd", ShortDuration(d)))
	}
}

func measureFlush(dir, dataPath string) (time.Duration, error) {
	if dir == "" || dataPath == "" {
		return 0, errors.New("no directory of pgoltp's on the data's filesystem")
	}
	same, err := sameDevice(dir, dataPath)
	if err != nil {
		return 0, err
	}
	if !same {
		return 0, fmt.Errorf("%s is not on the filesystem of %s", dir, dataPath)
	}
	f, err := os.CreateTemp(dir, ".pgoltp-flush-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 8192)
	for i := range buf {
		buf[i] = byte(i * 7) // not all zeros: no filesystem special-cases it
	}
	// The first write allocates the block and sets the size: the ones
	// timed rewrite it, as WAL rewrites a preallocated segment.
	if _, err := f.WriteAt(buf, 0); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	var times []time.Duration
	deadline := time.Now().Add(flushMaxTime)
	for len(times) < flushWrites && (len(times) < flushMinimum || time.Now().Before(deadline)) {
		t0 := time.Now()
		if _, err := f.WriteAt(buf, 0); err != nil {
			return 0, err
		}
		if err := dataSync(f); err != nil {
			return 0, err
		}
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

// sameDevice says whether a and b are on one filesystem.
func sameDevice(a, b string) (bool, error) {
	da, err := deviceOf(filepath.Clean(a))
	if err != nil {
		return false, err
	}
	db, err := deviceOf(filepath.Clean(b))
	if err != nil {
		return false, err
	}
	return da == db, nil
}

// ShortDuration writes 87µs, 1.2ms, 8ms.
func ShortDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return d.Round(time.Millisecond).String()
}
