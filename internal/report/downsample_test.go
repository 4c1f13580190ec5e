package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/store"
)

const week = 7 * 24 * 3600

// TestBucketizeAWeekKeepsEachBucketsExtremes: a week of 1 s points becomes
// at most maxPointsPerLine buckets, and each bucket's envelope is exactly
// the true minimum and maximum of the raw points it covers (a one-second
// spike survives), with the mean in between.
func TestBucketizeAWeekKeepsEachBucketsExtremes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs, ys := make([]float64, week), make([]float64, week)
	for i := range xs {
		xs[i], ys[i] = float64(i), 1000+100*math.Sin(float64(i)/3600)+rng.NormFloat64()*10
	}
	ys[123457] = 99999 // one spike a mean would flatten
	ys[400000] = -5
	ys[500000] = math.NaN() // a gap
	b := bucketize(xs, ys, maxPointsPerLine)
	if len(b.X) > maxPointsPerLine || len(b.X) < maxPointsPerLine/2 || !b.Thinned {
		t.Fatalf("%d buckets (thinned %v), want at most %d", len(b.X), b.Thinned, maxPointsPerLine)
	}
	size := int(math.Ceil(float64(week) / float64(maxPointsPerLine)))
	for k := range b.X {
		lo, hi := math.Inf(1), math.Inf(-1)
		for j := k * size; j < min((k+1)*size, week); j++ {
			if !math.IsNaN(ys[j]) {
				lo, hi = math.Min(lo, ys[j]), math.Max(hi, ys[j])
			}
		}
		if b.Min[k] != lo || b.Max[k] != hi || b.Mean[k] < lo || b.Mean[k] > hi {
			t.Fatalf("bucket %d: min %v max %v mean %v, true range [%v, %v]", k, b.Min[k], b.Max[k], b.Mean[k], lo, hi)
		}
	}
	var top float64
	for _, v := range b.Max {
		top = math.Max(top, v)
	}
	if top != 99999 {
		t.Errorf("the envelope lost the spike: max %v", top)
	}
	if short := bucketize(xs[:10], ys[:10], maxPointsPerLine); short.Thinned || len(short.X) != 10 {
		t.Errorf("a short line was thinned: %d points", len(short.X))
	}
}

// secondsRun is a stored run of n seconds at 1 s resolution: the driver's
// series and three collector metrics sampled every second.
func secondsRun(n int) *store.Run {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	r := &store.Run{ID: "res", Workload: "tpcb", StartedAt: start, EndedAt: start.Add(time.Duration(n) * time.Second), Status: store.Complete}
	s := &collect.Samples{Start: start, End: r.EndedAt, Interval: time.Second}
	rng := rand.New(rand.NewPCG(3, 4))
	r.Series = make([]store.Interval, 0, n)
	s.Points = make([]collect.Point, 0, 3*n)
	for i := range n {
		at := start.Add(time.Duration(i) * time.Second)
		r.Series = append(r.Series, store.Interval{Second: i, Length: 1, Type: "transaction", Count: int64(900 + rng.IntN(200)),
			P50: 900, P95: 1500, P99: 2000 + float64(rng.IntN(500))})
		s.Points = append(s.Points,
			collect.Point{At: at, Metric: "os.cpu.user_pct", Value: 40 + rng.Float64()*20},
			collect.Point{At: at, Metric: "pg.xact.commits_per_s", Value: 1000 + rng.Float64()*100},
			collect.Point{At: at, Metric: "pg.wal.mb_per_s", Value: 1 + rng.Float64()})
	}
	r.Samples = s
	return r
}

// TestWeekAtOneSecondRendersBounded: the report of a week at 1 s
// resolution is about as big as that of a day (the page size depends on
// the number of charts, not on the run's length), every line's read-out
// data has at most maxPointsPerLine points, and thinned lines carry their
// envelope. Asserted in bytes, not time.
func TestWeekAtOneSecondRendersBounded(t *testing.T) {
	render := func(r *store.Run) []byte {
		var b bytes.Buffer
		if err := HTML(&b, r); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	dayPage, weekPage := render(secondsRun(24*3600)), render(secondsRun(week))
	t.Logf("report of a day: %d bytes, of a week: %d bytes", len(dayPage), len(weekPage))
	const limit = 2 << 20 // a few charts of 1,200 buckets each: well under 2 MiB
	if len(weekPage) > limit {
		t.Errorf("the report of a week at 1 s is %d bytes, over %d", len(weekPage), limit)
	}
	if float64(len(weekPage)) > 1.25*float64(len(dayPage)) {
		t.Errorf("a week's report is %d bytes, a day's %d: the page grows with the run", len(weekPage), len(dayPage))
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`).FindSubmatch(weekPage)
	if m == nil {
		t.Fatal("no chart data in the page")
	}
	var data struct {
		Charts map[string]struct {
			L []struct {
				X, Y, Lo, Hi []float64
			} `json:"l"`
		} `json:"charts"`
	}
	if err := json.Unmarshal(m[1], &data); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for id, c := range data.Charts {
		for _, l := range c.L {
			lines++
			if len(l.X) > maxPointsPerLine || len(l.Y) != len(l.X) {
				t.Errorf("chart %s: a line of %d points, over %d", id, len(l.X), maxPointsPerLine)
			}
			perHour := strings.HasPrefix(id, "lr-") // a week has 168 hours: not thinned
			if !perHour && (len(l.Lo) != len(l.X) || len(l.Hi) != len(l.X)) {
				t.Errorf("chart %s: a thinned line without its envelope (%d lo, %d hi for %d points)", id, len(l.Lo), len(l.Hi), len(l.X))
			}
		}
	}
	if lines < 4 {
		t.Fatalf("only %d lines in the chart data", lines)
	}
	if !bytes.Contains(weekPage, []byte(`class="envelope"`)) {
		t.Error("no envelope drawn for a week at 1 s")
	}
}
