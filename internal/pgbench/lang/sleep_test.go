package lang

import "testing"

// TestSleepMicrosAsEvaluateSleep: units, variables and C's atoi/int
// arithmetic as pgbench's evaluateSleep.
func TestSleepMicrosAsEvaluateSleep(t *testing.T) {
	vars := map[string]string{"t": "25", "bad": "x1", "neg": "-3", "zero": "0"}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	for _, c := range []struct {
		line string
		want int32
		err  string
	}{
		{`\sleep 2`, 2000000, ""}, {`\sleep 10ms`, 10000, ""}, {`\sleep 10 us`, 10, ""},
		{`\sleep :t ms`, 25000, ""}, {`\sleep :neg`, -3000000, ""}, {`\sleep :zero s`, 0, ""},
		{`\sleep 5000 s`, 705032704, ""}, // 5e9 wraps in a C int
		{`\sleep :bad`, 0, `sleep: invalid sleep time "x1" for variable "bad"`},
		{`\sleep :nosuch`, 0, `sleep: undefined variable "nosuch"`},
	} {
		s, err := ParseScript("s.sql", c.line+"\n")
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		got, err := s.Commands[0].SleepMicros(lookup)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: error %v, want %s", c.line, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s = %d, %v; want %d", c.line, got, err, c.want)
		}
	}
}
