package pgbench

import "context"

// Initialize runs -i's steps.
func Initialize(ctx context.Context, o *Options, env Env) error { return nil }
