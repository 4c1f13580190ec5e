package main

import (
	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// loadFreeDisk is what a load's disk check reads: the free space of the
// managed cluster's data directory. The disk of a --dsn server cannot be
// seen: nil, and the load prints a note with its estimate instead.
func loadFreeDisk() (func() (int64, error), error) {
	if global.dsn != "" {
		return nil, nil
	}
	c, err := cluster.Open(global.lab)
	if err != nil {
		return nil, err
	}
	return func() (int64, error) { return workload.FreeDisk(c.DataDir) }, nil
}
