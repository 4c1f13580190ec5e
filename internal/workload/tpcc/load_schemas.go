package tpcc

import (
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// loadSchemas loads opts.Schemas (normalized) in parallel within the
// loader's worker budget: with at least as many workers as schemas, every
// schema loads at once on its share of the workers; with fewer, Workers
// schemas load at a time on one worker each. The first failure stops the
// others (each then stays marked incomplete, and the next load rebuilds it).
func loadSchemas(ctx context.Context, dsn string, opts LoadOptions) (LoadStats, error) {
	start := time.Now()
	if err := checkRoom(ctx, dsn, opts); err != nil { // for all of them at once
		return LoadStats{}, err
	}
	n := len(opts.Schemas)
	all := LoadStats{Warehouses: opts.Warehouses, Workers: opts.Workers, Seed: opts.Seed,
		Schema: strings.Join(opts.Schemas, ","), Schemas: make([]LoadStats, n), Rows: map[string]int64{}}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(min(n, opts.Workers))
	var progressMu sync.Mutex
	for i, s := range opts.Schemas {
		o := opts
		o.Schema, o.Schemas = s, nil
		o.roomChecked = true
		o.Workers = max(1, opts.Workers/n)
		if i < opts.Workers%n && opts.Workers >= n {
			o.Workers++
		}
		// Parallel loads print plain lines, each named by its schema.
		o.ProgressBar = false
		if opts.Progress != nil {
			o.Progress = &prefixWriter{mu: &progressMu, w: opts.Progress, prefix: s + ": "}
		}
		g.Go(func() error {
			st, err := Load(gctx, dsn, o)
			st.Schema = s
			all.Schemas[i] = st
			return inSchema(err, s, opts.Schemas)
		})
	}
	err := g.Wait()
	all.AlreadyLoaded = err == nil
	for _, st := range all.Schemas {
		for t, r := range st.Rows {
			all.Rows[t] += r
		}
		all.AlreadyLoaded = all.AlreadyLoaded && st.AlreadyLoaded
		all.Replaced = all.Replaced || st.Replaced
	}
	all.Total = time.Since(start)
	if err != nil && ctx.Err() != nil {
		return all, ctx.Err() // interrupted: say so, not what the cut loads reported
	}
	return all, err
}

// prefixWriter starts every write (a progress line) with the prefix; writers
// sharing mu do not interleave within a line.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := io.WriteString(p.w, p.prefix); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}
