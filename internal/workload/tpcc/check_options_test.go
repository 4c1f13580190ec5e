package tpcc

import (
	"strings"
	"testing"
)

func TestCheckOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		fresh string
		o     CheckOptions
		want  string // in the error; "" for none
	}{
		{"good", "no", CheckOptions{Workers: 1, Only: []string{CheckNames()[0]}}, ""},
		{"fresh", "maybe", CheckOptions{Workers: 1}, `fresh value "maybe"`},
		{"only", "auto", CheckOptions{Workers: 1, Only: []string{"nonsense"}}, `check "nonsense"`},
		{"workers", "auto", CheckOptions{Workers: 0}, "workers must be at least 1, got 0"},
	} {
		err := c.o.Validate(c.fresh)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	o := CheckOptions{Workers: 2}
	if err := o.Validate("yes"); err != nil || o.Fresh != FreshYes {
		t.Errorf("--fresh yes: %v, %v", o.Fresh, err)
	}
}

func TestCheckReportVerdict(t *testing.T) {
	rep := CheckReport{Results: []CheckResult{{Name: "a", Status: StatusPass}, {Name: "b", Status: StatusFail}, {Name: "c", Status: StatusFail}}}
	if err := rep.Verdict(); err == nil || !strings.Contains(err.Error(), "2 of 3 checks failed: b, c") {
		t.Errorf("verdict %v", err)
	}
	rep.Results = rep.Results[:1]
	if err := rep.Verdict(); err != nil {
		t.Errorf("verdict of a pass: %v", err)
	}
}
