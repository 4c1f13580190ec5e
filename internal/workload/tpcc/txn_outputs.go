package tpcc

import "time"

// The outputs of the five transactions: what the terminal displays (clauses
// 2.4.3.3, 2.5.3.3, 2.6.3.3, 2.7.4.2 via the result file, 2.8.3.3). Both paths
// fill the same types, so their outputs can be compared field by field. Each
// terminal's session owns one of each and reuses it (slices are truncated, not
// reallocated). Money is in cents and rates in units of 1/10,000, read
// exactly from the numeric columns.

// NewOrderOutput is clause 2.4.3.3 (and 2.4.3.4 for a rolled-back order:
// then only the header up to OID is meaningful).
type NewOrderOutput struct {
	W, D, C        int32
	CLast, CCredit string
	CDiscount      int64 // 1/10,000
	WTax, DTax     int64 // 1/10,000
	OlCnt          int32
	OID            int32
	EntryD         time.Time
	TotalCents     int64 // Σ ol_amount × (1 − c_discount) × (1 + w_tax + d_tax), rounded to the cent
	RolledBack     bool  // "Item number is not valid" (2.4.3.4)
	Lines          []NewOrderLineOutput
}

// NewOrderLineOutput is one line of clause 2.4.3.3.
type NewOrderLineOutput struct {
	SupplyW, IID   int32
	IName          string
	Qty, SQuantity int32
	BrandGeneric   byte // 'B' when both i_data and s_data contain "ORIGINAL", else 'G'
	IPriceCents    int64
	AmountCents    int64
}

// orderTotalCents is the clause 2.4.2.2 total, exact: amounts in cents,
// rates in 1/10,000, rounded half up to the cent (as numeric round(x, 2)).
func orderTotalCents(sumCents, discount, wTax, dTax int64) int64 {
	p := sumCents * (10000 - discount) * (10000 + wTax + dTax)
	return (p + 50_000_000) / 100_000_000
}

// PaymentOutput is clause 2.5.3.3 (the inputs W, D, C_W, C_D and the amount
// are the terminal's own; h_date is the transaction's time).
type PaymentOutput struct {
	WName, WStreet1, WStreet2, WCity, WState, WZip string
	DName, DStreet1, DStreet2, DCity, DState, DZip string
	CID                                            int32
	CFirst, CMiddle, CLast                         string
	CStreet1, CStreet2, CCity, CState, CZip        string
	CPhone                                         string
	CSince                                         time.Time
	CCredit                                        string
	CCreditLimCents                                int64
	CDiscount                                      int64 // 1/10,000
	CBalanceCents                                  int64
	CData200                                       string // first 200 characters of c_data, BC customers only
}

// OrderStatusOutput is clause 2.6.3.3.
type OrderStatusOutput struct {
	CID                    int32
	CFirst, CMiddle, CLast string
	CBalanceCents          int64
	OID                    int32
	EntryD                 time.Time
	Carrier                int32 // 0 = null
	Lines                  []OrderStatusLineOutput
}

// OrderStatusLineOutput is one order line of clause 2.6.3.3.
type OrderStatusLineOutput struct {
	SupplyW, IID int32
	Qty          int32
	AmountCents  int64
	DeliveryD    time.Time // zero = null
}

// consistent reports whether the output is one picture of the order
// (clauses 2.6.2.2, 3.4): o_carrier_id is null exactly when no line is
// delivered, so the carrier and the lines come from the same state.
func (o *OrderStatusOutput) consistent() bool {
	for _, l := range o.Lines {
		if l.DeliveryD.IsZero() != (o.Carrier == 0) {
			return false
		}
	}
	return true
}

// StockLevelOutput is clause 2.8.3.3.
type StockLevelOutput struct {
	LowStock int64
}

// txnOutputs are a session's reusable outputs, one per transaction kind
// (the Delivery's is its deliveryOutcome).
type txnOutputs struct {
	no  NewOrderOutput
	pay PaymentOutput
	os  OrderStatusOutput
	sl  StockLevelOutput
}

// customerFields are the scan targets of the customer columns both paths
// return, in the order of their statements.
func (o *PaymentOutput) customerFields() []any {
	return []any{&o.CID, &o.CFirst, &o.CMiddle, &o.CLast, &o.CStreet1, &o.CStreet2,
		&o.CCity, &o.CState, &o.CZip, &o.CPhone, &o.CSince, &o.CCredit,
		&o.CCreditLimCents, &o.CDiscount, &o.CBalanceCents, &o.CData200}
}
