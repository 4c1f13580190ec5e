package collect

import (
	"testing"
	"time"
)

func TestResolveBloatEvery(t *testing.T) {
	tests := []struct {
		name         string
		set          bool
		value, plan  time.Duration
		want         time.Duration
		wantBadInput bool
	}{
		{"short run: off", false, 0, 10 * time.Minute, 0, false},
		{"unknown length: off", false, 0, 0, 0, false},
		{"an hour: every 15m", false, 0, time.Hour, DefaultBloatEvery, false},
		{"a week: every 15m", false, 0, 168 * time.Hour, DefaultBloatEvery, false},
		{"given on a short run", true, time.Minute, 10 * time.Minute, time.Minute, false},
		{"turned off on a long run", true, 0, 72 * time.Hour, 0, false},
		{"negative", true, -time.Minute, time.Hour, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveBloatEvery(tc.set, tc.value, tc.plan)
			if (err != nil) != tc.wantBadInput || got != tc.want {
				t.Fatalf("got %v, %v; want %v, error %v", got, err, tc.want, tc.wantBadInput)
			}
		})
	}
}
