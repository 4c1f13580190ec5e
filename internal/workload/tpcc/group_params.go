package tpcc

import (
	"fmt"
	"strconv"
	"time"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// SharedParams implements workload.GroupParams: what every part of a group
// must run with for their results to merge into one run. Terminals,
// connections and rate are each part's own share of the load.
func (w *Workload) SharedParams() []workload.Param {
	o := w.Options
	_ = o.Validate() // defaults filled in, as the run will
	if o.Duration == 0 && o.TxnsPerTerminal == 0 && o.StopAtTxns == 0 && o.Mode == ModeNoWait {
		o.Duration = time.Minute // Resolve's default
	}
	warehouses := "all loaded"
	if o.Warehouses > 0 {
		warehouses = strconv.Itoa(o.Warehouses)
	}
	return []workload.Param{
		{Name: "path", Value: o.Path},
		{Name: "mode", Value: o.Mode},
		{Name: "isolation", Value: o.Isolation},
		{Name: "duration", Value: o.Duration.String()},
		{Name: "ramp-up", Value: o.Ramp.String()},
		{Name: "transactions per terminal", Value: strconv.Itoa(o.TxnsPerTerminal)},
		{Name: "stop at transactions", Value: strconv.FormatInt(o.StopAtTxns, 10)},
		{Name: "mix", Value: fmt.Sprint(o.Weights)},
		{Name: "max retries", Value: strconv.Itoa(o.MaxRetries)},
		{Name: "keying scale", Value: strconv.FormatFloat(o.KeyingScale, 'g', -1, 64)},
		{Name: "warehouses", Value: warehouses},
		{Name: "schema", Value: o.Schema},
	}
}
