package main

import (
	"errors"

	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// badFlag is err as bad input, its options named as the command's flags
// (asFlags): a field error that says what to do instead keeps its fix, any
// other error gets fix.
func badFlag(err error, renamed map[string]string, fix string) error {
	var fe *field.Error
	if errors.As(err, &fe) && fe.HasFix() {
		fix = ""
	}
	return &problem.Problem{What: asFlags(err, renamed).Error(), Fix: fix, Code: problem.ExitBadInput, Err: err}
}

// asFlags names the options of err's field error (field.Error) by the flags
// the user wrote: "--" and the field's words ("DeliveryWorkers":
// --delivery-workers), or the flag renamed gives a field whose flag reads
// otherwise.
func asFlags(err error, renamed map[string]string) error {
	return field.Rename(err, func(f string) string {
		if name, ok := renamed[f]; ok {
			return name
		}
		return "--" + field.Name(f)
	})
}

// tpccRunFlagNames are the flags of 'tpcc run' not named by their field.
var tpccRunFlagNames = map[string]string{"AllowNonCompliant": "--allow-noncompliant", "CheckMode": "--check"}

// studyFlagNames are the flags of compare-versions (study.Options) not named
// by their field.
var studyFlagNames = map[string]string{"Majors": "--pg", "Sets": "--set"}

// groupFlagNames are the group flags of a run command (group.Options).
var groupFlagNames = map[string]string{"Name": "--group", "Timeout": "--group-timeout"}

// tpcbRunFlagNames are the flags of 'tpcb run' not named by their field.
var tpcbRunFlagNames = map[string]string{"Transactions": "-t"}

// namedFlags is err with its field error (if any) named by the command's
// flags (asFlags) as bad input; any other error passes through unchanged.
func namedFlags(err error, renamed map[string]string) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err
	}
	return &problem.Problem{What: asFlags(err, renamed).Error(), Code: problem.ExitBadInput, Err: err}
}
