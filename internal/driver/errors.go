package driver

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATEs the driver treats specially.
const (
	SerializationFailure = "40001"
	DeadlockDetected     = "40P01"
)

// Retryable reports whether err is a serialization failure or a deadlock: the
// transaction was rolled back and may simply be run again.
func Retryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == SerializationFailure || pgErr.Code == DeadlockDetected
	}
	return false
}

// SQLState returns the SQLSTATE of err, or "" if it did not come from the server.
func SQLState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// ConnectionLost reports whether err means the connection is gone (network
// error, server shutdown or crash, the backend terminated), so it must be
// re-established before the next transaction.
func ConnectionLost(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 57 (operator intervention: admin shutdown, crash shutdown,
		// cannot connect now) and class 08 (connection exception).
		return len(pgErr.Code) == 5 && (pgErr.Code[:2] == "57" || pgErr.Code[:2] == "08")
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var connectErr *pgconn.ConnectError
	return errors.As(err, &connectErr) || pgconn.SafeToRetry(err) || errors.Is(err, net.ErrClosed)
}

// RetryBackoff is the pause before retry number attempt (0-based) of a
// transaction that hit a serialization failure or deadlock: random up to
// 1 ms × 2^attempt, at most 100 ms, so that the transactions that collided do
// not collide again in lockstep.
func RetryBackoff(attempt int) time.Duration {
	limit := time.Millisecond << min(attempt, 7)
	limit = min(limit, 100*time.Millisecond)
	return time.Duration(rand.Int64N(int64(limit)))
}
