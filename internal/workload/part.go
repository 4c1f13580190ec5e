package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// Part is part K of N of a partitioned run or load: N processes (on one
// machine or several) share one database, each driving or loading its own
// contiguous range of warehouses (TPC-B: branches). The zero Part is the
// whole database, as without --part.
type Part struct{ K, N int }

// ParsePart reads "k/n" as --part gives it.
func ParsePart(s string) (Part, error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	k, errK := strconv.Atoi(ks)
	n, errN := strconv.Atoi(ns)
	if !ok || errK != nil || errN != nil {
		return Part{}, fmt.Errorf("--part %q: write k/n, e.g. 2/4 for the second of four parts", s)
	}
	p := Part{K: k, N: n}
	if p.Whole() {
		// Part{} is the whole database, which --part 0/0 must not silently ask for.
		return Part{}, fmt.Errorf("--part %q: n must be at least 1, e.g. 2/4 for the second of four parts", s)
	}
	return p, p.Validate()
}

// Whole says the Part is the whole database (no --part).
func (p Part) Whole() bool { return p.N == 0 }

// String is "k/n", or "" for the whole.
func (p Part) String() string {
	if p.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.K, p.N)
}

// Validate checks 1 ≤ K ≤ N (the zero Part is valid: the whole).
func (p Part) Validate() error {
	if p.Whole() && p.K == 0 {
		return nil
	}
	if p.N < 1 || p.K < 1 || p.K > p.N {
		return fmt.Errorf("--part %d/%d: k must be from 1 to n, e.g. 1/%d .. %d/%d", p.K, p.N, max(p.N, 1), max(p.N, 1), max(p.N, 1))
	}
	return nil
}

// Range returns the units (numbered 1..total) that the part owns: first and
// count of a contiguous range. The ranges of parts 1..N tile 1..total in order
// and differ in size by at most one (the first total mod N parts get one
// more). The whole owns 1..total. More parts than units is an error: a part
// with nothing to drive would measure nothing.
func (p Part) Range(total int) (first, count int, err error) {
	if p.Whole() {
		return 1, total, nil
	}
	if err := p.Validate(); err != nil {
		return 0, 0, err
	}
	if p.N > total {
		return 0, 0, fmt.Errorf("--part %s: %d parts for %d warehouses (branches); use at most %d parts", p, p.N, total, total)
	}
	base, extra := total/p.N, total%p.N
	i := p.K - 1
	first = 1 + i*base + min(i, extra)
	count = base
	if i < extra {
		count++
	}
	return first, count, nil
}

// PartValue is --part k/n as a flag value (pflag.Value).
type PartValue struct{ P *Part }

func (v PartValue) String() string { return v.P.String() }

// Type names the value in --help.
func (v PartValue) Type() string { return "k/n" }

// Set parses s; a bad part is a flag error.
func (v PartValue) Set(s string) error {
	p, err := ParsePart(s)
	if err == nil {
		*v.P = p
	}
	return err
}
