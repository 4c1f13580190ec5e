package lang

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Seeds is pgbench's base_random_sequence together with the seed it started
// from; every other generator is drawn from it in pgbench's order (see
// Streams).
type Seeds struct {
	Seed uint64 // the value of :random_seed
	base PRNG
}

// ParseSeed reads a --random-seed / PGBENCH_RANDOM_SEED value as pgbench's
// set_random_seed does: "time" (microseconds; pgbench reads a monotonic
// clock, this reads the epoch), "rand" (a strong random source) or an
// unsigned integer.
func ParseSeed(s string) (*Seeds, error) {
	var seed uint64
	switch s {
	case "time":
		seed = uint64(time.Now().UnixMicro())
	case "rand":
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("could not generate random seed")
		}
		seed = binary.LittleEndian.Uint64(b[:])
	default:
		v, ok := parseUlong(s)
		if !ok {
			return nil, &SeedError{Value: s}
		}
		seed = v
	}
	return NewSeeds(seed), nil
}

// SeedError is a bad --random-seed or PGBENCH_RANDOM_SEED value. Printed
// after "pgbench: error: " it gives pgbench's lines.
type SeedError struct {
	Value string
	From  string // "--random-seed option" or "PGBENCH_RANDOM_SEED environment variable"
}

func (e *SeedError) Error() string {
	s := fmt.Sprintf("unrecognized random seed option \"%s\"\npgbench: detail: Expecting an unsigned integer, \"time\" or \"rand\".", e.Value)
	if e.From != "" {
		s += "\npgbench: error: error while setting random seed from " + e.From
	}
	return s
}

// ChooseSeed makes pgbench's two set_random_seed calls: with
// PGBENCH_RANDOM_SEED (env nil when unset), then with --random-seed (flag nil
// when not given; the last wins). info holds the "setting random seed to N"
// messages pgbench logs (after "pgbench: ").
func ChooseSeed(env, flag *string) (seeds *Seeds, info []string, err error) {
	for _, src := range []struct {
		v    *string
		from string
	}{{env, "PGBENCH_RANDOM_SEED environment variable"}, {flag, "--random-seed option"}} {
		if src.v == nil {
			if seeds == nil {
				seeds, _ = ParseSeed("time")
			}
			continue
		}
		s, err := ParseSeed(*src.v)
		if err != nil {
			if se, ok := err.(*SeedError); ok {
				se.From = src.from
			}
			return nil, info, err
		}
		seeds = s
		info = append(info, fmt.Sprintf("setting random seed to %d", s.Seed))
	}
	return seeds, info, nil
}

// parseUlong mimics sscanf("%lu%c") == 1: leading spaces, an optional sign
// (a minus wraps), digits, nothing after; overflow saturates like strtoul.
func parseUlong(s string) (uint64, bool) {
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" || t[0] < '0' || t[0] > '9' {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		v = ^uint64(0)
	}
	if neg {
		v = -v
	}
	return v, true
}

// NewSeeds starts the base sequence from seed.
func NewSeeds(seed uint64) *Seeds {
	s := &Seeds{Seed: seed}
	s.base.Seed(seed)
	return s
}

// Next is pgbench's initRandomState: a generator seeded from the next value
// of the base sequence.
func (s *Seeds) Next() *PRNG {
	return NewPRNG(s.base.Uint64())
}

// Uint64 draws the next raw value of the base sequence.
func (s *Seeds) Uint64() uint64 { return s.base.Uint64() }

// ThreadStreams are the generators pgbench gives each thread.
type ThreadStreams struct {
	Choose, Throttle, Sample *PRNG // script choice, --rate schedule, --sampling-rate
}

// Streams are all generators of a run, drawn in pgbench 15's order: each
// client's expression generator (clients 0..n-1), then default_seed, then
// for each thread its choose, throttle and sample generators.
type Streams struct {
	Clients     []*PRNG
	DefaultSeed int64 // the value of :default_seed unless -D sets it
	Threads     []ThreadStreams
}

// NewStreams draws the streams of a run with the given clients and threads.
// defaultSeedSet is true when -D default_seed=... was given: pgbench then
// does not draw it, which shifts the threads' generators.
func (s *Seeds) NewStreams(clients, threads int, defaultSeedSet bool) Streams {
	st := Streams{Clients: make([]*PRNG, clients), Threads: make([]ThreadStreams, threads)}
	for i := range st.Clients {
		st.Clients[i] = s.Next()
	}
	if !defaultSeedSet {
		st.DefaultSeed = int64(s.base.Uint64())
	}
	for i := range st.Threads {
		st.Threads[i] = ThreadStreams{Choose: s.Next(), Throttle: s.Next(), Sample: s.Next()}
	}
	return st
}
