package study

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/field"
)

func TestParseMajors(t *testing.T) {
	got, err := ParseMajors("10, 15,10,18")
	if err != nil || !reflect.DeepEqual(got, []int{10, 15, 18}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "15", "15,x", "15,0", "15,99"} {
		if _, err := ParseMajors(bad); err == nil {
			t.Errorf("--pg %q accepted", bad)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	good := Options{Majors: []int{12, 13}, Workload: "tpcb", Kinds: []string{"tpcb", "tpcc"}, Scale: 1, Warehouses: 1, Clients: 1,
		Duration: time.Second, Repetitions: 1, Sets: []string{"wal_keep_size=1GB"}}
	for _, c := range []struct {
		name   string
		change func(*Options)
		want   string // in the error; "" for none
	}{
		{"good", func(*Options) {}, ""},
		{"workload", func(o *Options) { o.Workload = "ledger" }, `workload "ledger": use tpcb or tpcc`},
		{"duration", func(o *Options) { o.Duration, o.DurationText = 0, "soon" }, `duration "soon"`},
		{"clients", func(o *Options) { o.Clients = 0 }, "at least 1"},
		{"set", func(o *Options) { o.Sets = []string{"jit"} }, `sets "jit": use name=value`},
		{"refused", func(o *Options) { o.Sets = []string{"listen_addresses=*"} }, "sets listen_addresses=* for PostgreSQL 12: pgoltp never sets listen_addresses"},
	} {
		o := good
		c.change(&o)
		err := o.Validate()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		// A field error, which the command names by its flag and a plan by its key.
		if fe := (*field.Error)(nil); err != nil && !errors.As(err, &fe) {
			t.Errorf("%s: %v is not a field error", c.name, err)
		}
	}
	o := good
	if err := o.Validate(); err != nil || len(o.PerMajor[12]) != 1 || len(o.PerMajor[13]) != 1 || len(o.Translations()) != 2 {
		t.Errorf("translations %v, %v", o.PerMajor, err)
	}
	if o.MajorsList() != "12,13" {
		t.Errorf("MajorsList %q", o.MajorsList())
	}
}
