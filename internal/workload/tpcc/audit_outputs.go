package tpcc

import "github.com/pgoltp/pgoltp/internal/metrics"

// auditOutput checks at run time what one transaction's output must show.
// An Order-Status is one consistent picture of the customer's last order
// (clauses 2.6.2.2 and 3.4): o_carrier_id is null exactly when none of its
// lines has a delivery date. A violation is counted, not an error.
func auditOutput(l *metrics.Local, ss *session, kind int) {
	if kind == kindOrderStatus && !ss.out.os.consistent() {
		l.Add(kind, cntOSMismatch, 1)
	}
}
