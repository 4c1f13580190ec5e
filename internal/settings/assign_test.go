package settings

import (
	"reflect"
	"testing"
)

func TestParseAssignments(t *testing.T) {
	got, err := ParseAssignments([]string{" work_mem = 64MB", "jit=off", "x=a=b"})
	want := []Assignment{{"work_mem", "64MB", " work_mem = 64MB"}, {"jit", "off", "jit=off"}, {"x", "a=b", "x=a=b"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"work_mem", " =1", ""} {
		if _, err := ParseAssignments([]string{"jit=off", bad}); err == nil || err.Error() != `"`+bad+`"` {
			t.Errorf("%q: error %v, want the pair quoted", bad, err)
		}
	}
}
