package pgbuild

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/field"
)

// TestValidate: a build needs a name a directory can have, gcc or clang,
// and configure options that leave the prefix, compiler and CFLAGS to
// pgoltp; each refusal is a field error naming its option.
func TestValidate(t *testing.T) {
	good := Options{Name: "o3-native", CC: "gcc", CFLAGS: "-O3 -march=native", Configure: []string{"--with-lz4"}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for want, o := range map[string]Options{
		"Name":      {CC: "gcc"},
		"CC":        {Name: "x", CC: "icc"},
		"Configure": {Name: "x", CC: "clang", Configure: []string{"--prefix=/usr"}},
	} {
		var fe *field.Error
		if err := o.Validate(); !errors.As(err, &fe) || !strings.Contains(field.Rename(err, func(f string) string { return "<" + f + ">" }).Error(), "<"+want+">") {
			t.Errorf("%+v: %v, want a field error of %s", o, err, want)
		}
	}
	bad := good
	bad.Name = "../x"
	if bad.Validate() == nil {
		t.Error("a name with a path was accepted")
	}
	same := cluster.Build{CC: "gcc", CFLAGS: "-O3 -march=native", Configure: []string{"--with-lz4"}}
	if !good.sameAs(same) {
		t.Error("the same options are not the same")
	}
	same.CFLAGS = "-O2"
	if good.sameAs(same) {
		t.Error("other CFLAGS are the same")
	}
}
