package tpcb

import (
	"strconv"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// SharedParams implements workload.GroupParams: what every part of a group
// must run with for their results to merge into one run. Clients and rate
// are each part's own share of the load.
func (w *Workload) SharedParams() []workload.Param {
	o := w.Options
	_ = o.Validate() // defaults filled in, as the run will
	return []workload.Param{
		{Name: "script", Value: string(o.Script)},
		{Name: "protocol", Value: string(o.Protocol)},
		{Name: "isolation", Value: o.Isolation},
		{Name: "duration", Value: o.Duration.String()},
		{Name: "transactions per client", Value: strconv.Itoa(o.Transactions)},
		{Name: "stop at transactions", Value: strconv.FormatInt(o.StopAtTxns, 10)},
		{Name: "max tries", Value: strconv.Itoa(o.MaxTries)},
		{Name: "latency limit", Value: o.LatencyLimit.String()},
	}
}
