package tpcb

import (
	"strings"
	"testing"
	"time"
)

func TestFlagsApply(t *testing.T) {
	good := Flags{Protocol: "simple", Builtin: "tpcb-like", Duration: "90", LatencyLimit: "50", Progress: 2, MaxTries: 0}
	var o RunOptions
	o.Clients, o.Jobs = 1, 1
	if err := good.Apply(&o); err != nil {
		t.Fatal(err)
	}
	if o.Duration != 90*time.Second || o.LatencyLimit != 50*time.Millisecond || o.Progress != 2*time.Second || o.MaxTries != -1 {
		t.Errorf("options %+v", o)
	}
	for _, c := range []struct {
		change func(*Flags)
		want   string
	}{
		{func(f *Flags) { f.SkipSome, f.SelectOnly = true, true }, "exclude each other"},
		{func(f *Flags) { f.Duration = "soon" }, `--duration "soon"`},
		{func(f *Flags) { f.LatencyLimit = "x" }, `--latency-limit "x"`},
		{func(f *Flags) { f.MaxTries = -1 }, "--max-tries -1"},
	} {
		f := good
		c.change(&f)
		o := RunOptions{Clients: 1, Jobs: 1}
		if err := f.Apply(&o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	f := good
	f.SelectOnly = true
	o = RunOptions{Clients: 1, Jobs: 1}
	if err := f.Apply(&o); err != nil || o.Script != ScriptSelectOnly {
		t.Errorf("-S: script %q, %v", o.Script, err)
	}
}
