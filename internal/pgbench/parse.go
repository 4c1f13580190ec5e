package pgbench

import (
	"fmt"
	"os/user"
	"strings"
)

// shortOptions is pgbench 15's optstring.
const shortOptions = "iI:h:nvp:dqb:SNc:j:Crs:t:T:U:lf:D:F:M:P:R:L:"

// longOptions is pgbench's long option table in its order (glibc lists
// ambiguous abbreviations in this order), with 17's --exit-on-abort and
// --dbname.
var longOptions = []longOption{
	{"builtin", requiredArg, "b"}, {"client", requiredArg, "c"}, {"connect", noArg, "C"},
	{"debug", noArg, "d"}, {"define", requiredArg, "D"}, {"file", requiredArg, "f"},
	{"fillfactor", requiredArg, "F"}, {"host", requiredArg, "h"}, {"initialize", noArg, "i"},
	{"init-steps", requiredArg, "I"}, {"jobs", requiredArg, "j"}, {"log", noArg, "l"},
	{"latency-limit", requiredArg, "L"}, {"no-vacuum", noArg, "n"}, {"port", requiredArg, "p"},
	{"progress", requiredArg, "P"}, {"protocol", requiredArg, "M"}, {"quiet", noArg, "q"},
	{"report-per-command", noArg, "r"}, {"rate", requiredArg, "R"}, {"scale", requiredArg, "s"},
	{"select-only", noArg, "S"}, {"skip-some-updates", noArg, "N"}, {"time", requiredArg, "T"},
	{"transactions", requiredArg, "t"}, {"username", requiredArg, "U"}, {"vacuum-all", noArg, "v"},
	{"unlogged-tables", noArg, "unlogged-tables"}, {"tablespace", requiredArg, "tablespace"},
	{"index-tablespace", requiredArg, "index-tablespace"}, {"sampling-rate", requiredArg, "sampling-rate"},
	{"aggregate-interval", requiredArg, "aggregate-interval"}, {"progress-timestamp", noArg, "progress-timestamp"},
	{"log-prefix", requiredArg, "log-prefix"}, {"foreign-keys", noArg, "foreign-keys"},
	{"random-seed", requiredArg, "random-seed"}, {"show-script", requiredArg, "show-script"},
	{"partitions", requiredArg, "partitions"}, {"partition-method", requiredArg, "partition-method"},
	{"failures-detailed", noArg, "failures-detailed"}, {"max-tries", requiredArg, "max-tries"},
	{"verbose-errors", noArg, "verbose-errors"}, {"exit-on-abort", noArg, "exit-on-abort"},
	{"dbname", requiredArg, "dbname"},
}

// Version is what -V prints: the pgbench whose behaviour is reproduced.
const Version = "pgbench (PostgreSQL) 15.18 (pgoltp)"

// parser is the state of one command line being read.
type parser struct {
	o   *Options
	log logger
	env Env
	g   *getopt
}

// Parse reads pgbench's command line (without the program name) and checks
// it as pgbench does. --help, -V, -b list and --show-script print and return
// *Exit{0}; a bad option prints pgbench's message and returns *Exit{1}.
func Parse(args []string, env Env) (*Options, error) {
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-?":
			fmt.Fprint(env.Stdout, usage)
			return nil, &Exit{Code: 0}
		case "--version", "-V":
			fmt.Fprintln(env.Stdout, Version)
			return nil, &Exit{Code: 0}
		}
	}
	p := &parser{o: defaults(), log: logger{w: env.Stderr}, env: env}
	p.g = &getopt{args: args, short: shortOptions, long: longOptions, posix: env.Getenv("POSIXLY_CORRECT") != "",
		stderr: env.Stderr, prog: progName}
	if err := p.seed(env.Getenv("PGBENCH_RANDOM_SEED"), "PGBENCH_RANDOM_SEED environment variable"); err != nil {
		return nil, err
	}
	for {
		key, value, ok, bad := p.g.next()
		if !ok {
			break
		}
		if bad {
			p.log.tryHelp()
			return nil, &Exit{Code: 1}
		}
		if err := p.option(key, value); err != nil {
			return nil, err
		}
	}
	if err := p.scriptsAndDatabase(); err != nil {
		return nil, err
	}
	if p.o.Init {
		return p.o, p.checkInit()
	}
	return p.o, p.checkRun()
}

// option applies one option, in the order given, as pgbench's option loop.
func (p *parser) option(key, value string) error {
	if h, ok := connectionOptions[key]; ok {
		return h(p, value)
	}
	if h, ok := initOptions[key]; ok {
		p.o.initialization = true
		return h(p, value)
	}
	if h, ok := runOptions[key]; ok {
		p.o.benchmarking = true
		return h(p, value)
	}
	panic("pgbench: option without a handler: " + key)
}

// scriptsAndDatabase completes what every mode needs after the options: the
// default script, the total weight, the threads and the database name.
func (p *parser) scriptsAndDatabase() error {
	o := p.o
	if len(o.Scripts) == 0 && !o.Init {
		b, _ := findBuiltin(p.log, "tpcb-like")
		o.Scripts = append(o.Scripts, Script{Desc: b.Desc, Text: b.Text, Weight: 1, Builtin: true})
		o.benchmarking, o.InternalScript = true, true
	}
	total := 0
	for _, s := range o.Scripts {
		total += s.Weight
	}
	if total == 0 && !o.Init {
		return p.log.fatal("total script weight must not be zero")
	}
	o.PerScriptStats = len(o.Scripts) > 1
	o.Jobs = min(o.Jobs, o.Clients)
	operands := p.g.operands
	if o.DBName == "" {
		switch {
		case len(operands) > 0:
			o.DBName, operands = operands[0], operands[1:]
		case p.env.Getenv("PGDATABASE") != "":
			o.DBName = p.env.Getenv("PGDATABASE")
		case p.env.Getenv("PGUSER") != "":
			o.DBName = p.env.Getenv("PGUSER")
		default:
			u, err := user.Current()
			if err != nil {
				return p.log.fatal("could not look up effective user ID %s: %v", "", err)
			}
			o.DBName = u.Username
		}
	}
	if len(operands) > 0 {
		p.log.error("too many command-line arguments (first is \"%s\")", operands[0])
		p.log.tryHelp()
		return &Exit{Code: 1}
	}
	return nil
}

// checkInit is pgbench's check of -i's options and its completion of -I.
func (p *parser) checkInit() error {
	o := p.o
	if o.benchmarking {
		return p.log.fatal("some of the specified options cannot be used in initialization (-i) mode")
	}
	if o.Partitions == 0 && o.PartitionMethod != "" {
		return p.log.fatal("--partition-method requires greater than zero --partitions")
	}
	if o.Partitions > 0 && o.PartitionMethod == "" {
		o.PartitionMethod = "range"
	}
	if !o.initStepsGiven {
		o.InitSteps = "dtgvp"
	}
	if o.NoVacuum {
		o.InitSteps = strings.ReplaceAll(o.InitSteps, "v", " ")
	}
	if o.ForeignKeys && !strings.Contains(o.InitSteps, "f") {
		o.InitSteps += "f"
	}
	return nil
}

// checkRun is pgbench's check of a run's options, in pgbench's order.
func (p *parser) checkRun() error {
	o := p.o
	checks := []struct {
		bad bool
		msg string
	}{
		{o.initialization, "some of the specified options cannot be used in benchmarking mode"},
		{o.Transactions > 0 && o.Duration > 0, "specify either a number of transactions (-t) or a duration (-T), not both"},
	}
	for _, c := range checks {
		if c.bad {
			return p.log.fatal("%s", c.msg)
		}
	}
	if o.Transactions <= 0 && o.Duration <= 0 {
		o.Transactions = 10
	}
	return p.checkLogging()
}

func (p *parser) checkLogging() error {
	o := p.o
	checks := []struct {
		bad bool
		msg string
	}{
		{o.SamplingRate > 0 && !o.Log, "log sampling (--sampling-rate) is allowed only when logging transactions (-l)"},
		{o.SamplingRate > 0 && o.AggregateInterval > 0, "log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time"},
		{o.AggregateInterval > 0 && !o.Log, "log aggregation is allowed only when actually logging transactions"},
		{!o.Log && o.logPrefixGiven, "log file prefix (--log-prefix) is allowed only when logging transactions (-l)"},
		{o.Duration > 0 && o.AggregateInterval > o.Duration,
			fmt.Sprintf("number of seconds for aggregation (%d) must not be higher than test duration (%d)", o.AggregateInterval, o.Duration)},
		{o.Duration > 0 && o.AggregateInterval > 0 && o.Duration%o.AggregateInterval != 0,
			fmt.Sprintf("duration (%d) must be a multiple of aggregation interval (%d)", o.Duration, o.AggregateInterval)},
		{o.ProgressTimestamp && o.Progress == 0, "--progress-timestamp is allowed only under --progress"},
		{o.MaxTries == 0 && o.LatencyLimitUs == 0 && o.Duration <= 0,
			"an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)"},
	}
	for _, c := range checks {
		if c.bad {
			return p.log.fatal("%s", c.msg)
		}
	}
	return nil
}
