package tpcc

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoadProgressLine: the plain line says rows done of the total, the
// share, rows/s, MB/s and the time left at that rate.
func TestLoadProgressLine(t *testing.T) {
	for _, tc := range []struct {
		rows, total, bytes int64
		elapsed            time.Duration
		want               string
	}{
		{250_000, 1_000_000, 20_000_000, 10 * time.Second, "loading: 250000/1000000 rows (25%), 25000 rows/s, 2.0 MB/s, ETA 30s"},
		{0, 1_000_000, 0, time.Second, "loading: 0/1000000 rows (0%), 0 rows/s, 0.0 MB/s, ETA ?"},
		{1_000, 50_000_000_000, 150_000_000_000, 1_000 * time.Second, "loading: 1000/50000000000 rows (0%), 1 rows/s, 150.0 MB/s, ETA > 999h"},
		{5_000_000, 5_000_000, 1_000_000_000, 4 * time.Second, "loading: 5000000/5000000 rows (100%), 1250000 rows/s, 250.0 MB/s, ETA 0s"},
	} {
		if got := loadProgressLine(tc.rows, tc.total, tc.bytes, tc.elapsed); got != tc.want {
			t.Errorf("loadProgressLine(%d, %d, %d, %v)\n got %q\nwant %q", tc.rows, tc.total, tc.bytes, tc.elapsed, got, tc.want)
		}
	}
}

// TestLoadProgressOfARealLoad loads one warehouse with a line every 50 ms
// and reads its progress output: lines whose rows grow to the total, whose
// rates and time left are numbers, then the summary line and the phases.
func TestLoadProgressOfARealLoad(t *testing.T) {
	t.Parallel()
	dsn := pgtestDatabase(t)
	var out bytes.Buffer
	st, err := Load(context.Background(), dsn, LoadOptions{Warehouses: 1, Workers: 2, Seed: 5, Progress: &out, progressEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// One warehouse's tables are 85-95 MB without indexes (TPCC.md: 70-100 MB with them).
	if st.TableBytes < 60e6 || st.TableBytes > 120e6 || st.DriverPeakRSS <= 0 || st.DriverCPU <= 0 {
		t.Errorf("load stats: tables %d bytes, driver peak RSS %d, CPU %v", st.TableBytes, st.DriverPeakRSS, st.DriverCPU)
	}
	line := regexp.MustCompile(`^loading: (\d+)/(\d+) rows \(\d+%\), \d+ rows/s, (\d+\.\d) MB/s, ETA (\S+|> 999h)$`)
	var last int64
	var lines int
	for _, l := range strings.Split(out.String(), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		lines++
		rows, _ := strconv.ParseInt(m[1], 10, 64)
		total, _ := strconv.ParseInt(m[2], 10, 64)
		if rows < last || total != st.TotalRows() {
			t.Errorf("line %q: rows went back from %d, or total is not the load's %d rows", l, last, st.TotalRows())
		}
		last = rows
		if _, err := time.ParseDuration(m[4]); err != nil && m[4] != "?" && m[4] != "> 999h" {
			t.Errorf("line %q: time left %q is not a duration", l, m[4])
		}
	}
	if lines == 0 {
		t.Fatalf("no progress line in:\n%s", out.String())
	}
	for _, want := range []string{"loaded " + strconv.FormatInt(st.TotalRows(), 10) + " rows in ", " MB/s of COPY data)", "building ", "analyzing", "done"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("progress output lacks %q:\n%s", want, out.String())
		}
	}
}
