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

func TestLoadProblem(t *testing.T) {
	live := context.Background()
	gone, cancel := context.WithCancel(live)
	cancel()
	if err := LoadProblem(live, nil); err != nil {
		t.Errorf("nil became %v", err)
	}
	for _, c := range []struct {
		ctx  context.Context
		err  error
		code int
		text string
	}{
		{live, fmt.Errorf("%w: 2 warehouses in public", ErrLoadExists), problem.ExitBadInput, "2 warehouses in public; pass --force"},
		{live, ErrLoadBusy, problem.ExitBadInput, "wait for it to finish"},
		{gone, errors.New("connection reset"), problem.ExitFailed, "load interrupted"},
	} {
		var p *problem.Problem
		if err := LoadProblem(c.ctx, c.err); !errors.As(err, &p) || p.Code != c.code || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%v: got %v, want code %d and %q", c.err, err, c.code, c.text)
		}
	}
	if err := LoadProblem(live, errors.New("disk full")); err == nil || err.Error() != "tpcc load: disk full" {
		t.Errorf("plain error became %v", err)
	}
}
