package tpcc

import (
	"fmt"
	"time"
)

// Transaction kinds, in the order of --weights NO,P,OS,D,SL. kindDeliveryDeferred
// is not dealt from the deck: it is the deferred execution of a queued Delivery
// (clause 2.7.2), measured from queueing to completion.
const (
	kindNewOrder = iota
	kindPayment
	kindOrderStatus
	kindDelivery
	kindStockLevel
	kindDeliveryDeferred
	numKinds
)

// numDealt is the number of kinds a terminal deals from its deck.
const numDealt = 5

// kindInfo is the one table of per-transaction facts: names, keying and mean
// think times (clause 5.2.5.7), the 90th-percentile response time limit
// (clause 5.2.5.3) and the card count of the default deck (clause 5.2.4.2).
//
// The limit is the only response time rule the run judges, as
// shared/TPCC.md states it: "90th-percentile response time limits:
// New-Order, Payment, Order-Status, Delivery (the queuing) 5 s; Stock-Level
// 20 s; deferred Delivery completes within 80 s." Nothing there compares the
// percentile with the mean, so no such rule is applied: on the Delivery's
// queueing, whole microseconds, a few scheduler outliers would decide it.
type kindInfo struct {
	name   string
	short  string
	keying time.Duration
	think  time.Duration
	p90    time.Duration
	cards  int
}

var kinds = [numKinds]kindInfo{
	kindNewOrder:         {"new_order", "NO", 18 * time.Second, 12 * time.Second, 5 * time.Second, 10},
	kindPayment:          {"payment", "P", 3 * time.Second, 12 * time.Second, 5 * time.Second, 10},
	kindOrderStatus:      {"order_status", "OS", 2 * time.Second, 10 * time.Second, 5 * time.Second, 1},
	kindDelivery:         {"delivery", "D", 2 * time.Second, 5 * time.Second, 5 * time.Second, 1},
	kindStockLevel:       {"stock_level", "SL", 2 * time.Second, 5 * time.Second, 20 * time.Second, 1},
	kindDeliveryDeferred: {"delivery_deferred", "Dq", 0, 0, 80 * time.Second, 0},
}

// kindNames returns the kind names, indexed by kind.
func kindNames() []string {
	names := make([]string, numKinds)
	for k, ki := range kinds {
		names[k] = ki.name
	}
	return names
}

// Per-kind counters recorded next to the latencies.
const (
	cntErrors            = iota // failed after retries, or not retryable
	cntRetries                  // serialization failures and deadlocks retried
	cntRollbacks                // New-Order: rolled back on the unused item (clause 2.4.1.4)
	cntSkipped                  // Delivery: districts without a new order (clause 2.7.4.2)
	cntLines                    // New-Order: order lines requested
	cntRemoteLines              // New-Order: lines supplied by another warehouse
	cntRemote                   // Payment: customer of another warehouse
	cntByName                   // Payment, Order-Status: customer selected by last name
	cntLost                     // errors that lost the connection (a subset of cntErrors)
	cntSkippedDeliveries        // Delivery: executions that skipped at least one district (clause 2.7.4.2)
	cntOSMismatch               // Order-Status: carrier and delivery dates disagree (audit_outputs.go)
	// cntOLCnt counts the New-Orders of minOLCnt lines; cntOLCnt+k those of
	// minOLCnt+k lines (clause 2.4.1.3), for the uniformity audit.
	cntOLCnt
)

// The order lines per New-Order are random [5..15] (clause 2.4.1.3).
const (
	minOLCnt  = 5
	maxOLCnt  = 15
	olCntBins = maxOLCnt - minOLCnt + 1
)

// errorCounter is the counter of failed transactions (cntErrors), as the
// recorder's stored series reads it.
const errorCounter = "errors"

func counterNames() []string {
	names := []string{errorCounter, "retries", "rollbacks", "skipped", "lines", "remote_lines", "remote", "by_name", "lost", "skipped_deliveries", "os_mismatch"}
	for n := minOLCnt; n <= maxOLCnt; n++ {
		names = append(names, fmt.Sprintf("orders_of_%d_lines", n))
	}
	return names
}

// Table sizes of clause 1.2 the inputs are drawn over.
const (
	districtsPerWarehouse = 10
	customersPerDistrict  = 3000
	itemCount             = 100000
	unusedItem            = itemCount + 1 // clause 2.4.1.5: an unused item number
)
