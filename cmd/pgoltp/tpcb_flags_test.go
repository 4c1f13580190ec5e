package main

import (
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/workload/tpcb"
)

func TestTPCBRunFlagsApply(t *testing.T) {
	good := tpcbRunFlags{Protocol: "simple", Builtin: "tpcb-like", Duration: "90", LatencyLimit: "50", Progress: 2, MaxTries: 0}
	var o tpcb.RunOptions
	o.Clients, o.Jobs = 1, 1
	if err := good.apply(&o); err != nil {
		t.Fatal(err)
	}
	if o.Duration != 90*time.Second || o.LatencyLimit != 50*time.Millisecond || o.Progress != 2*time.Second || o.MaxTries != -1 {
		t.Errorf("options %+v", o)
	}
	for _, c := range []struct {
		change func(*tpcbRunFlags)
		want   string
	}{
		{func(f *tpcbRunFlags) { f.SkipSome, f.SelectOnly = true, true }, "exclude each other"},
		{func(f *tpcbRunFlags) { f.Duration = "soon" }, `--duration "soon"`},
		{func(f *tpcbRunFlags) { f.LatencyLimit = "x" }, `--latency-limit "x"`},
		{func(f *tpcbRunFlags) { f.MaxTries = -1 }, "--max-tries -1"},
	} {
		f := good
		c.change(&f)
		o := tpcb.RunOptions{Clients: 1, Jobs: 1}
		if err := f.apply(&o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	f := good
	f.SelectOnly = true
	o = tpcb.RunOptions{Clients: 1, Jobs: 1}
	if err := f.apply(&o); err != nil || o.Script != tpcb.ScriptSelectOnly {
		t.Errorf("-S: script %q, %v", o.Script, err)
	}
}
