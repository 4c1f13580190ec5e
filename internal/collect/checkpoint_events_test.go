package collect

import (
	"strings"
	"testing"
	"time"
)

// The cause of each checkpoint as the sampler names it, from the counters
// and pg_control's checkpoint time tick by tick, in the orders the servers
// report them.
func TestCheckpointCauses(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)
	type step struct {
		timed, req float64
		ckpt       int // pg_control's checkpoint time, in seconds after t0
	}
	cases := []struct {
		name  string
		ticks []step
		want  []string
	}{
		{
			// 15 and later count a checkpoint as it starts: the next one has
			// started, and is counted, by the tick that sees this one end.
			name:  "counted at the start, back to back",
			ticks: []step{{0, 10, 0}, {0, 11, 0}, {0, 11, 0}, {0, 12, 1}, {0, 12, 1}, {0, 13, 3}, {0, 13, 5}},
			want:  []string{"requested", "requested", "requested"},
		},
		{
			name:  "counted a tick after the end",
			ticks: []step{{0, 0, 0}, {0, 0, 2}, {0, 1, 2}, {0, 1, 2}, {1, 1, 4}},
			want:  []string{"requested", "timed"},
		},
		{
			// Before 17 the timed count rises for skipped checkpoints too.
			name:  "skipped timed checkpoints, then a requested one",
			ticks: []step{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {2, 1, 0}, {2, 1, 5}},
			want:  []string{"requested"},
		},
		{
			name:  "never counted",
			ticks: []step{{0, 0, 0}, {0, 0, 2}, {0, 0, 2}, {0, 0, 2}, {0, 0, 2}, {0, 0, 2}},
			want:  []string{"unattributed"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newPGSampler(15)
			var got []string
			for i, st := range c.ticks {
				at := t0.Add(time.Duration(i+1) * 10 * time.Second)
				tk := &tick{counters: map[string]float64{"ckpt_timed": st.timed, "ckpt_req": st.req},
					ckptTime: t0.Add(time.Duration(st.ckpt) * time.Second)}
				s.checkpointEvents(at, tk, func(e Event) {
					cause, _, _ := strings.Cut(e.Detail, " ")
					got = append(got, cause)
				})
				s.prevAt = at
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("causes %v, want %v", got, c.want)
			}
		})
	}
}
