package pgbench

import (
	"context"
	"errors"
)

// Main runs pgbench's command line and returns its exit code.
func Main(ctx context.Context, args []string, env Env) int {
	o, err := Parse(args, env)
	if err == nil {
		if o.Init {
			err = Initialize(ctx, o, env)
		} else {
			err = run(ctx, o, env)
		}
	}
	var exit *Exit
	if errors.As(err, &exit) {
		return exit.Code
	}
	if err != nil {
		logger{w: env.Stderr}.error("%v", err)
		return 1
	}
	return 0
}
