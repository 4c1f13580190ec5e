package tpcc

import (
	"slices"
	"strings"
	"testing"
)

func TestPlanCopyJobs(t *testing.T) {
	pop := &population{seed: 1, warehouses: 10}
	units := pop.units()
	countRows := func(jobs []copyJob) int {
		n := 0
		for _, j := range jobs {
			for _, u := range j.units {
				n += u.total()
			}
		}
		return n
	}
	var want int
	for _, u := range units {
		want += u.total()
	}

	// Two workers: every table fits a worker's share, so every table is one
	// frozen job.
	jobs := planCopyJobs(units, SchemaOptions{}, nil, 2)
	if len(jobs) != len(tpccTables) || countRows(jobs) != want {
		t.Fatalf("2 workers: %d jobs over %d rows, want %d jobs over %d", len(jobs), countRows(jobs), len(tpccTables), want)
	}
	for _, j := range jobs {
		if !j.freeze || j.rel != j.table.name {
			t.Errorf("2 workers: job %s freeze=%v", j.rel, j.freeze)
		}
	}
	var order []string
	for _, j := range jobs {
		order = append(order, j.rel)
	}
	if !slices.Equal(order, copyOrder) {
		t.Errorf("2 workers: tables loaded in the order %v, want %v", order, copyOrder)
	}

	// Eight workers: stock and others are too big for one worker and are
	// split into unfrozen slices; the small tables stay frozen.
	jobs = planCopyJobs(units, SchemaOptions{}, nil, 8)
	if countRows(jobs) != want {
		t.Fatalf("8 workers: %d rows, want %d", countRows(jobs), want)
	}
	stockSlices := 0
	for _, j := range jobs {
		if j.rel == "stock" {
			stockSlices++
			if j.freeze {
				t.Error("8 workers: a sliced stock job is frozen")
			}
		}
		if j.rel == "item" && !j.freeze {
			t.Error("8 workers: item should be frozen")
		}
	}
	if stockSlices < 2 {
		t.Errorf("8 workers: stock in %d jobs, want it split", stockSlices)
	}
	// A table's slices are handed out together, so that it is complete early.
	seen := map[string]bool{}
	for i, j := range jobs {
		if seen[j.rel] && jobs[i-1].rel != j.rel {
			t.Errorf("8 workers: %s's slices are not together", j.rel)
		}
		seen[j.rel] = true
	}

	// Partitions: one job per partition, named after it.
	part := map[int]int{}
	for w := 1; w <= 10; w++ {
		part[w] = w % 4
	}
	jobs = planCopyJobs(units, SchemaOptions{Partitions: 4}, part, 2)
	if countRows(jobs) != want {
		t.Fatalf("partitions: %d rows, want %d", countRows(jobs), want)
	}
	for _, j := range jobs {
		if j.table.warehouseColumn != "" && !strings.HasPrefix(j.rel, j.table.name+"_p") {
			t.Errorf("partitioned job into %s", j.rel)
		}
		for _, u := range j.units {
			if w := u.warehouse(); w != 0 && j.rel != j.table.name && !strings.HasSuffix(j.rel, "_p"+string(rune('0'+part[w]))) {
				t.Errorf("warehouse %d in %s", w, j.rel)
			}
		}
	}
}
