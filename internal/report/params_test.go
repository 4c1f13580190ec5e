package report_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/store"
)

func TestParamsFlattensOptions(t *testing.T) {
	type limits struct {
		Rate    float64       `json:"rate"`
		Timeout time.Duration `json:"timeout"`
	}
	type options struct {
		Warehouses int               `json:"warehouses"`
		Duration   time.Duration     `json:"duration"`
		Mix        []int             `json:"mix"`
		Limits     limits            `json:"limits"`
		Settings   map[string]string `json:"settings"`
		Secret     string            `json:"-"`
		Progress   func()
		hidden     int
		Plain      bool
	}
	got := report.Params(options{Warehouses: 2, Duration: 90 * time.Second, Mix: []int{45, 43, 4}, Limits: limits{Rate: 0, Timeout: time.Second},
		Settings: map[string]string{"b": "2", "a": "1"}, Secret: "x", hidden: 1, Plain: true})
	want := []store.KV{{Name: "warehouses", Value: "2"}, {Name: "duration", Value: "1m30s"}, {Name: "mix", Value: "45,43,4"},
		{Name: "limits.rate", Value: "0"}, {Name: "limits.timeout", Value: "1s"}, {Name: "settings", Value: "a=1,b=2"}, {Name: "Plain", Value: "true"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Params:\n got %v\nwant %v", got, want)
	}
}
