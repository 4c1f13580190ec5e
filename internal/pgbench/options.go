package pgbench

import (
	"io"
	"os"
)

// QueryModes are -M's values in pgbench's order.
var QueryModes = []string{"simple", "extended", "prepared"}

// Script is one script to run: a built-in or a file, with its weight.
type Script struct {
	Desc    string // "<builtin: select only>" or the file name
	Text    string
	Weight  int
	Builtin bool
}

// Var is a -D definition, in the order given (a later one replaces an
// earlier one of the same name).
type Var struct{ Name, Value string }

// Options are pgbench's command line, read with pgbench's semantics.
type Options struct {
	Init              bool   // -i
	InitSteps         string // -I, or the default; after -n and --foreign-keys are applied
	Fillfactor        int    // -F
	Quiet             bool   // -q
	Scale             int    // -s
	ScaleGiven        bool
	ForeignKeys       bool
	NoVacuum          bool // -n
	Partitions        int
	PartitionMethod   string // "" (none), "range" or "hash"
	UnloggedTables    bool
	Tablespace        string
	IndexTablespace   string
	Scripts           []Script
	Vars              []Var
	Clients           int  // -c
	Jobs              int  // -j, at most Clients
	Connect           bool // -C
	Transactions      int  // -t; 0 with Duration
	Duration          int  // -T seconds
	QueryMode         string
	VacuumAll         bool    // -v
	Progress          int     // -P seconds
	ProgressTimestamp bool    // --progress-timestamp
	ReportPerCommand  bool    // -r
	Rate              float64 // -R tps, 0 = unthrottled
	LatencyLimitUs    int64   // -L, in microseconds
	Log               bool    // -l
	LogPrefix         string  // --log-prefix, default "pgbench_log"
	SamplingRate      float64
	AggregateInterval int
	RandomSeed        uint64
	MaxTries          int // 0 = unlimited
	FailuresDetailed  bool
	VerboseErrors     bool
	ExitOnAbort       bool // 17
	Debug             bool // -d (15) or --debug
	Host, Port, User  string
	DBName            string
	InternalScript    bool // a built-in runs: the scale comes from the database
	PerScriptStats    bool // several scripts: a block each in the summary

	benchmarking   bool // an option only a run takes was given
	initialization bool // an option only -i takes was given
	initStepsGiven bool
	logPrefixGiven bool
}

// Env is what pgbench reads besides its arguments.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// NeedCPUs, when set, is told before a run how many CPUs (GOMAXPROCS)
	// the run engine needs: one per thread loop (-j), and no spare (loop.go
	// says why). The command applies it (driver.UseCPUs); nil leaves
	// GOMAXPROCS alone.
	NeedCPUs func(n int)
}

// OSEnv is the process's own environment.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

func defaults() *Options {
	return &Options{Fillfactor: 100, Scale: 1, Clients: 1, Jobs: 1, QueryMode: "simple", MaxTries: 1, LogPrefix: "pgbench_log"}
}
