package main

import (
	"errors"
	"fmt"

	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/registry"
	"github.com/pgoltp/pgoltp/internal/workload/script"
)

// planKeys name the options a plan sets by the plan's keys: its workload's
// size and clients (registry.Build puts them into each workload's options
// under the workload's own names), and what a versions plan hands the study.
var planKeys = map[string]string{
	"Scale": "workload.scale", "Warehouses": "workload.scale",
	"Clients": "workload.clients", "Conns": "workload.clients",
	"Majors": "versions", "Builds": "builds", "Repetitions": "repetitions", "Duration": "duration", "Sets": "baseline.settings",
	// kind script's
	"Files": "workload.files", "Builtins": "workload.builtins", "Defines": "workload.defines", "Protocol": "workload.protocol",
	"Jobs": "workload.jobs", "Rate": "workload.rate", "Init": "workload.init",
}

// planSpec is what a plan's workload is built from (registry.Build).
func planSpec(w experiment.PlanWorkload) registry.Spec {
	return registry.Spec{Scale: w.Scale, Clients: w.Clients, Script: script.Options{Files: w.Files, Builtins: w.Builtins,
		Defines: w.DefineList(), Protocol: w.Protocol, Jobs: w.Jobs, Rate: w.Rate, Init: w.Init}}
}

// asPlanKeys names the options of err's field error (field.Error) by the
// keys of a plan; an error without one is unchanged.
func asPlanKeys(err error) error { return field.Rename(err, field.Names(planKeys)) }

// badPlan is err, about the plan file at path, as bad input naming the
// plan's keys, never a flag: a bad value in a plan is the plan's to fix.
func badPlan(path string, err error) error {
	fix := "fix the plan file (see 'pgoltp experiment --help')"
	var fe *field.Error
	if errors.As(err, &fe) && fe.HasFix() {
		fix = ""
	}
	return &problem.Problem{What: fmt.Sprintf("%s: %s", path, asPlanKeys(err)), Fix: fix, Code: problem.ExitBadInput, Err: err}
}
