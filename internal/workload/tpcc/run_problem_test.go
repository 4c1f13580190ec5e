package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
)

func TestStartProblem(t *testing.T) {
	live := context.Background()
	gone, cancel := context.WithCancel(live)
	cancel()
	for _, c := range []struct {
		ctx  context.Context
		err  error
		code int
		text string
	}{
		{live, fmt.Errorf("%w: --conns 0", ErrBadOption), problem.ExitBadInput, "--conns 0"},
		{live, ErrNotLoaded, problem.ExitBadInput, ErrNotLoaded.Error()},
		{gone, errors.New("connection reset"), problem.ExitFailed, "interrupted before the run started"},
		{live, errors.New("connection refused"), problem.ExitBadInput, "cannot start the run"},
	} {
		var p *problem.Problem
		if err := StartProblem(c.ctx, c.err); !errors.As(err, &p) || p.Code != c.code || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%v: got %v (code %v), want code %d and %q", c.err, err, p, c.code, c.text)
		}
	}
}
