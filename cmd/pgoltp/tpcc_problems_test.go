package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

func TestTPCCStartProblem(t *testing.T) {
	live := context.Background()
	gone, cancel := context.WithCancel(live)
	cancel()
	for _, c := range []struct {
		ctx  context.Context
		err  error
		code int
		text string
	}{
		{live, fmt.Errorf("%w: --conns 0", tpcc.ErrBadOption), problem.ExitBadInput, "--conns 0"},
		{live, tpcc.ErrNotLoaded, problem.ExitBadInput, tpcc.ErrNotLoaded.Error()},
		{live, &tpcc.SchemaError{Schema: "tpcc9", Schemas: []string{"tpcc1", "tpcc9"}, Err: tpcc.ErrNotLoaded}, problem.ExitBadInput,
			"run 'pgoltp tpcc load --schemas tpcc1,tpcc9' first"},
		{gone, errors.New("connection reset"), problem.ExitFailed, "interrupted before the run started"},
		{live, errors.New("connection refused"), problem.ExitBadInput, "cannot start the run"},
	} {
		var p *problem.Problem
		if err := tpccStartProblem(c.ctx, c.err); !errors.As(err, &p) || p.Code != c.code || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%v: got %v (code %v), want code %d and %q", c.err, err, p, c.code, c.text)
		}
	}
}

func TestTPCCLoadProblem(t *testing.T) {
	live := context.Background()
	gone, cancel := context.WithCancel(live)
	cancel()
	if err := tpccLoadProblem(live, nil); err != nil {
		t.Errorf("nil became %v", err)
	}
	for _, c := range []struct {
		ctx  context.Context
		err  error
		code int
		text string
	}{
		{live, fmt.Errorf("%w: 2 warehouses in public", tpcc.ErrLoadExists), problem.ExitBadInput, "2 warehouses in public; pass --force"},
		{live, tpcc.ErrLoadBusy, problem.ExitBadInput, "wait for it to finish"},
		{gone, errors.New("connection reset"), problem.ExitFailed, "load interrupted"},
	} {
		var p *problem.Problem
		if err := tpccLoadProblem(c.ctx, c.err); !errors.As(err, &p) || p.Code != c.code || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%v: got %v, want code %d and %q", c.err, err, c.code, c.text)
		}
	}
	if err := tpccLoadProblem(live, errors.New("disk full")); err == nil || err.Error() != "tpcc load: disk full" {
		t.Errorf("plain error became %v", err)
	}
}
