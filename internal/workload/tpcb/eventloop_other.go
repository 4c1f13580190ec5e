//go:build !linux

package tpcb

import (
	"context"
	"time"
)

// runLoops reports false: the pgbench-style event loop (eventloop_linux.go)
// is Linux only, so elsewhere every client runs as a goroutine (client.go).
func runLoops(ctx context.Context, clients []*client, opts RunOptions, start, deadline time.Time) ([]error, bool, error) {
	return nil, false, nil
}
