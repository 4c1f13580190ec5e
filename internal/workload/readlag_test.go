package workload

import (
	"strings"
	"testing"
	"time"
)

// TestStaleness: a standby's replay position is dated by the first of the
// primary's marks past it, so the staleness is a lower bound to the marks'
// resolution; caught up, it is 0; behind every kept mark, the oldest.
func TestStaleness(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	marks := []primaryMark{{t0, 100}, {t0.Add(250 * time.Millisecond), 100}, {t0.Add(500 * time.Millisecond), 180}, {t0.Add(750 * time.Millisecond), 260}}
	at := t0.Add(800 * time.Millisecond)
	for _, c := range []struct {
		replayed int64
		want     time.Duration
	}{
		{260, 0},                      // replayed the last mark
		{300, 0},                      // past it (the primary moved on since)
		{200, 50 * time.Millisecond},  // behind the last mark only
		{180, 50 * time.Millisecond},  // at the third mark: lacks what the fourth added
		{150, 300 * time.Millisecond}, // lacks what the third mark added
		{50, 800 * time.Millisecond},  // behind every mark: dated at the oldest
	} {
		if got := staleness(marks, c.replayed, at); got != c.want {
			t.Errorf("replayed %d: staleness %s, want %s", c.replayed, got, c.want)
		}
	}
}

// TestSplitLines: the split counts every node's transactions and share,
// the primary first, and says how the lag was measured.
func TestSplitLines(t *testing.T) {
	s := NewSplit(300, []ReadNode{{Name: "standby1", DSN: "password=secret"}, {Name: "standby2"}}, []int64{50, 150}, []NodeLag{{Node: "standby1", Samples: 4, TimeP99: 20 * time.Millisecond, BytesP99: 4096}})
	text := strings.Join(s.Lines(), "\n")
	for _, want := range []string{"primary 300 (60.0%), standby1 50 (10.0%), standby2 150 (30.0%)", "read lag on standby1 (4 samples)", "p99 20ms", "pg_last_wal_replay_lsn"} {
		if !strings.Contains(text, want) {
			t.Errorf("split lines do not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "secret") {
		t.Errorf("split lines show a DSN:\n%s", text)
	}
	var ps []string
	for _, p := range s.Params() {
		ps = append(ps, p.Name+"="+p.Value)
	}
	if got := strings.Join(ps, " "); !strings.Contains(got, "reads.standby2.share=0.3000") || !strings.Contains(got, "reads.standby1.lag_p99_s=0.020") {
		t.Errorf("params %s", got)
	}
}
