package pgbench

import "os"

// runOptions may only be given without -i.
var runOptions = map[string]handler{
	"b": func(p *parser, v string) error {
		if v == "list" {
			listBuiltins(p.env.Stderr)
			return &Exit{Code: 0}
		}
		name, weight, err := p.scriptWeight(v)
		if err != nil {
			return err
		}
		return p.builtin(name, weight)
	},
	"S": func(p *parser, _ string) error { return p.builtin("select-only", 1) },
	"N": func(p *parser, _ string) error { return p.builtin("simple-update", 1) },
	"f": func(p *parser, v string) error {
		name, weight, err := p.scriptWeight(v)
		if err != nil {
			return err
		}
		text, err := p.readScript(name)
		if err != nil {
			return err
		}
		return p.addScript(Script{Desc: name, Text: text, Weight: weight})
	},
	"show-script": func(p *parser, v string) error {
		b, err := findBuiltin(p.log, v)
		if err == nil {
			p.log.w.Write([]byte("-- " + b.Name + ": " + b.Desc + "\n" + b.Text + "\n"))
			err = &Exit{Code: 0}
		}
		return err
	},
	"D": func(p *parser, v string) error { return p.define(v) },
	"c": func(p *parser, v string) error { return p.clients(v) },
	"j": func(p *parser, v string) error { return p.intOption(v, "-j/--jobs", 1, &p.o.Jobs) },
	"C": func(p *parser, _ string) error { p.o.Connect = true; return nil },
	"r": func(p *parser, _ string) error { p.o.ReportPerCommand = true; return nil },
	"t": func(p *parser, v string) error { return p.intOption(v, "-t/--transactions", 1, &p.o.Transactions) },
	"T": func(p *parser, v string) error { return p.intOption(v, "-T/--time", 1, &p.o.Duration) },
	"l": func(p *parser, _ string) error { p.o.Log = true; return nil },
	"v": func(p *parser, _ string) error { p.o.VacuumAll = true; return nil },
	"M": func(p *parser, v string) error {
		for _, m := range QueryModes {
			if m == v {
				p.o.QueryMode = v
				return nil
			}
		}
		return p.log.fatal("invalid query mode (-M): \"%s\"", v)
	},
	"P": func(p *parser, v string) error { return p.intOption(v, "-P/--progress", 1, &p.o.Progress) },
	"R": func(p *parser, v string) error {
		if p.o.Rate = atof(v); p.o.Rate <= 0 {
			return p.log.fatal("invalid rate limit: \"%s\"", v)
		}
		return nil
	},
	"L": func(p *parser, v string) error {
		ms := atof(v)
		if ms <= 0 {
			return p.log.fatal("invalid latency limit: \"%s\"", v)
		}
		p.o.LatencyLimitUs = int64(ms * 1000)
		return nil
	},
	"sampling-rate": func(p *parser, v string) error {
		if p.o.SamplingRate = atof(v); p.o.SamplingRate <= 0 || p.o.SamplingRate > 1 {
			return p.log.fatal("invalid sampling rate: \"%s\"", v)
		}
		return nil
	},
	"aggregate-interval": func(p *parser, v string) error {
		return p.intOption(v, "--aggregate-interval", 1, &p.o.AggregateInterval)
	},
	"progress-timestamp": func(p *parser, _ string) error { p.o.ProgressTimestamp = true; return nil },
	"log-prefix":         func(p *parser, v string) error { p.o.LogPrefix, p.o.logPrefixGiven = v, true; return nil },
	"random-seed":        func(p *parser, v string) error { return p.seed(v, "--random-seed option") },
	"failures-detailed":  func(p *parser, _ string) error { p.o.FailuresDetailed = true; return nil },
	"max-tries": func(p *parser, v string) error {
		n, _, _ := strtol(v)
		if int32(n) < 0 {
			return p.log.fatal("invalid number of maximum tries: \"%s\"", v)
		}
		p.o.MaxTries = int(int32(n))
		return nil
	},
	"verbose-errors": func(p *parser, _ string) error { p.o.VerboseErrors = true; return nil },
	"exit-on-abort":  func(p *parser, _ string) error { p.o.ExitOnAbort = true; return nil },
}

func (p *parser) builtin(name string, weight int) error {
	b, err := findBuiltin(p.log, name)
	if err != nil {
		return err
	}
	p.o.InternalScript = true
	return p.addScript(Script{Desc: b.Desc, Text: b.Text, Weight: weight, Builtin: true})
}

// readScript reads -f's file ("-" is standard input) as pgbench does.
func (p *parser) readScript(name string) (string, error) {
	if name == "-" {
		b, err := readAll(p.env.Stdin)
		if err != nil {
			return "", p.log.fatal("could not read file \"%s\": %s", name, errnoText(err))
		}
		return b, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", p.log.fatal("could not open file \"%s\": %s", name, errnoText(err))
	}
	return string(b), nil
}
