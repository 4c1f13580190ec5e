package crashaudit

import (
	"strings"
	"testing"
	"time"
)

// TestCrashOptionsValidate: each bad option is a field error naming its
// field and what it accepts, never a flag.
func TestCrashOptionsValidate(t *testing.T) {
	good := CrashOptions{Set: []string{"Synchronous_Commit = off"}, KillAfter: 5 * time.Second, Clients: 2}
	for _, c := range []struct {
		name   string
		change func(*CrashOptions)
		want   string // in the error; "" for none
	}{
		{"good", func(*CrashOptions) {}, ""},
		{"set without =", func(o *CrashOptions) { o.Set = []string{"fsync"} }, `set "fsync" is not name=value`},
		{"kill-after", func(o *CrashOptions) { o.KillAfter = time.Millisecond }, "kill-after 1ms is too short"},
		{"clients", func(o *CrashOptions) { o.Clients = 0 }, "clients 0 is too few"},
	} {
		o := good
		c.change(&o)
		err := o.Validate()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %v names a flag: the command names it (issue 26 point 5)", c.name, err)
		}
	}
	o := good
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	a := o.Audit(nil, "dsn", nil)
	if a.Settings["synchronous_commit"] != "off" || a.Workload.Clients != 2 || a.KillAfter != 5*time.Second {
		t.Errorf("audit %+v", a)
	}
}
