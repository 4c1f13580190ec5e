package tpcc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/pgoltp/pgoltp/internal/field"
)

// WriteFiles writes the population Load would create as one COPY text file
// per table (<dir>/<table>.copy), for benchmarks that compare the loader with
// a plain COPY of the same rows. It needs no database; the load time stamp
// is the current time. Tables are written in parallel, up to opts.Workers.
func WriteFiles(ctx context.Context, dir string, opts LoadOptions) (LoadStats, error) {
	start := time.Now()
	if len(opts.Schemas) > 0 {
		return LoadStats{}, field.New("Schemas", opts.Schemas, "the files are one database's, not several schemas'")
	}
	if err := opts.normalize(); err != nil {
		return LoadStats{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return LoadStats{}, err
	}
	seed := opts.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	st := LoadStats{Warehouses: opts.Warehouses, Workers: opts.Workers, Seed: seed,
		Constants: NewLoadConstants(NewRand(seed)), Rows: map[string]int64{}}
	pop := &population{seed: seed, warehouses: opts.Warehouses, c: st.Constants, now: newTimestampField(time.Now())}
	byTable := map[string][]rowSource{}
	for _, u := range pop.units() {
		byTable[u.table()] = append(byTable[u.table()], u)
	}
	names := TableNames()
	errs := make(chan error, len(names))
	sem := make(chan struct{}, opts.Workers)
	for _, name := range names {
		units := byTable[name]
		for _, u := range units {
			st.Rows[name] += int64(u.total())
		}
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs <- writeTableFile(ctx, filepath.Join(dir, name+".copy"), units)
		}()
	}
	for range names {
		if err := <-errs; err != nil {
			return st, err
		}
	}
	st.Total = time.Since(start)
	return st, nil
}

func writeTableFile(ctx context.Context, path string, units []rowSource) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, u := range units {
		if ctx.Err() != nil {
			f.Close()
			return ctx.Err()
		}
		if _, err := io.Copy(w, newCopySource(u, false, nil)); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
