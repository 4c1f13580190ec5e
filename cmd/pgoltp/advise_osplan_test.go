package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/host"
)

// TestAdviseOSPlan: advise gives its OS recommendation (huge pages, from a
// shared_buffers of 2GB) in doctor's form, an experiment plan whose step
// has an os: block, on top of the shared_buffers it advises; with a small
// shared_buffers it recommends no OS change and says so.
func TestAdviseOSPlan(t *testing.T) {
	gib := int64(1) << 30
	in := advise.AdviseInput{Host: host.Host{RAM: 24 * gib, CPUs: 2, Storage: "ssd"}, Major: 15, Connections: 20}
	a, err := advise.Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := writeAdviceOSPlan(&out, a); err != nil {
		t.Fatalf("24 GiB: %v", err)
	}
	plan, err := experiment.ParsePlan(strings.NewReader(out.String()))
	if err != nil {
		t.Fatalf("advise's os-plan is not a plan: %v\n%s", err, out.String())
	}
	sb := a.Settings()["shared_buffers"]
	if len(plan.Steps) != 1 || plan.Steps[0].OS["hugepages"] != "auto" || string(plan.Baseline.Settings["shared_buffers"]) != sb {
		t.Errorf("want one huge-pages step on shared_buffers %s, got baseline %v, steps %+v", sb, plan.Baseline.Settings, plan.Steps)
	}

	in.Host.RAM = 4 * gib
	if a, err = advise.Advise(in); err != nil {
		t.Fatal(err)
	}
	err = writeAdviceOSPlan(&out, a)
	if err == nil || !strings.Contains(err.Error(), "no OS change") {
		t.Errorf("4 GiB (shared_buffers %s): %v, want 'no OS change'", a.Settings()["shared_buffers"], err)
	}
}
