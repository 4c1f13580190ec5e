package report

import "testing"

// TestEventSummaryCountsCheckpointsByCause: many checkpoints read as one
// line that says how many were requested (WAL reached max_wal_size) and how
// often, and the table folds away only when it is long.
func TestEventSummaryCountsCheckpointsByCause(t *testing.T) {
	var ms []marker
	for i := 0; i < 225; i++ {
		ms = append(ms, marker{X: float64(i) * 3.75, Kind: "checkpoint", Detail: "requested checkpoint, finished by 18:45:11"})
	}
	ms = append(ms, marker{X: 761, Kind: "checkpoint", Detail: "timed checkpoint, finished by 18:57:48"},
		marker{X: 800, Kind: "deadlock", Detail: "1 deadlock(s)"})
	got := eventSummary(ms, 847)
	want := "227 events: 226 checkpoint (225 requested, 1 timed; one every 4 s), 1 deadlock"
	if got != want {
		t.Errorf("summary\n got %q\nwant %q", got, want)
	}
	if got := eventSummary(ms[:1], 60); got != "1 event: 1 checkpoint (1 requested)" {
		t.Errorf("one event: %q", got)
	}
}
