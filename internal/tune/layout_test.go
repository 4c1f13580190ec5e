package tune

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/stats"
	"github.com/pgoltp/pgoltp/internal/tune/record"
)

func TestUniformLayouts(t *testing.T) {
	tables := []string{"stock", "customer"}
	for _, tc := range []struct {
		name  string
		start map[string]int
		want  []map[string]int
	}{
		{"not set", map[string]int{}, []map[string]int{
			{"stock": 90, "customer": 90}, {"stock": 80, "customer": 80}, {"stock": 70, "customer": 70}}},
		{"explicit 100", map[string]int{"stock": 100, "customer": 100}, []map[string]int{
			{"stock": 90, "customer": 90}, {"stock": 80, "customer": 80}, {"stock": 70, "customer": 70}}},
		// Never above the start; a table already lower keeps its value
		// (and "not set" stays not set when unchanged).
		{"one lower", map[string]int{"stock": 85}, []map[string]int{
			{"stock": 85, "customer": 90}, {"stock": 80, "customer": 80}, {"stock": 70, "customer": 70}}},
		{"at 90", map[string]int{"stock": 90, "customer": 90}, []map[string]int{
			{"stock": 80, "customer": 80}, {"stock": 70, "customer": 70}}},
		{"all low", map[string]int{"stock": 50, "customer": 60}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := uniformLayouts(tables, tc.start)
			// Absent and 0 are the same (not set) for a comparison.
			norm := func(l []map[string]int) []string {
				var out []string
				for _, m := range l {
					out = append(out, layoutKey(tables, m))
				}
				return out
			}
			if !reflect.DeepEqual(norm(got), norm(tc.want)) {
				t.Errorf("uniformLayouts(%v) = %v, want %v", tc.start, got, tc.want)
			}
			for _, c := range got {
				for _, tb := range tables {
					if c[tb] == 0 && tc.start[tb] != 0 {
						t.Errorf("%v resets %s, which was set to %d", c, tb, tc.start[tb])
					}
				}
			}
		})
	}
}

func TestWithoutOne(t *testing.T) {
	tables := []string{"warehouse", "district", "stock"}
	start := map[string]int{"warehouse": 0, "district": 0, "stock": 0}
	best := map[string]int{"warehouse": 80, "district": 0, "stock": 80}
	names, got := withoutOne(tables, start, best)
	if !reflect.DeepEqual(names, []string{"warehouse", "stock"}) {
		t.Fatalf("tables ablated: %v, want the two changed ones", names)
	}
	want := []map[string]int{{"warehouse": 0, "district": 0, "stock": 80}, {"warehouse": 80, "district": 0, "stock": 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("withoutOne = %v, want %v", got, want)
	}
	if best["warehouse"] != 80 {
		t.Error("withoutOne changed the best layout it was given")
	}
}

func TestLayoutSQL(t *testing.T) {
	lay := &record.Layout{Tables: []string{"stock", "customer", "district"},
		Start: map[string]int{"customer": 100}, Best: map[string]int{"stock": 80, "customer": 100, "district": 0}}
	if got := layoutSQL(lay); got != "" {
		t.Errorf("a layout not kept gave SQL:\n%s", got)
	}
	lay.Kept, lay.Gain = true, stats.Effect{Valid: true, Percent: 5, Low: 1, High: 9}
	got := layoutSQL(lay)
	if !strings.Contains(got, `ALTER TABLE "stock" SET (fillfactor = 80);`) || !strings.Contains(got, `VACUUM FULL "stock";`) {
		t.Errorf("SQL of the kept layout:\n%s", got)
	}
	if strings.Contains(got, "customer") || strings.Contains(got, "district") {
		t.Errorf("SQL touches tables left at their start:\n%s", got)
	}
	res := &Result{record.Search{ID: "tune-x", Layout: lay, Kept: map[string]string{"work_mem": "8MB"},
		Confirmed: true, VsStart: stats.Effect{Valid: true, Percent: 4, Low: 1, High: 7}}}
	var b strings.Builder
	if err := res.Write(&b, "sql", false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "ALTER SYSTEM SET work_mem = '8MB';") || !strings.Contains(b.String(), `ALTER TABLE "stock" SET (fillfactor = 80);`) {
		t.Errorf("--format sql lacks the settings or the layout:\n%s", b.String())
	}
}
