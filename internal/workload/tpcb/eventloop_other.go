//go:build !linux

package tpcb

import "context"

// runLoops reports false: the pgbench-style event loop (eventloop_linux.go)
// is Linux only, so elsewhere every client runs as a goroutine (client.go).
func runLoops(ctx context.Context, clients []*client, books []*book, rc *reconnector, opts RunOptions) ([]error, bool, error) {
	return nil, false, nil
}
