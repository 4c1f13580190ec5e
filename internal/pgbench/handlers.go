package pgbench

import "strings"

type handler func(p *parser, value string) error

// connectionOptions mark neither mode: they serve both.
var connectionOptions = map[string]handler{
	"i":      func(p *parser, _ string) error { p.o.Init = true; return nil },
	"n":      func(p *parser, _ string) error { p.o.NoVacuum = true; return nil },
	"h":      func(p *parser, v string) error { p.o.Host = v; return nil },
	"p":      func(p *parser, v string) error { p.o.Port = v; return nil },
	"U":      func(p *parser, v string) error { p.o.User = v; return nil },
	"d":      (*parser).debugOrDBName,
	"dbname": func(p *parser, v string) error { p.o.DBName = v; return nil },
	"s": func(p *parser, v string) error {
		p.o.ScaleGiven = true
		return p.intOption(v, "-s/--scale", 1, &p.o.Scale)
	},
}

// debugOrDBName is -d: pgbench 15's --debug, or, followed by a separate
// argument that is not an option, pgbench 17's -d DBNAME. Either reading
// connects to the same database ("-d mydb" is also 15's debug plus the
// dbname operand); only 15's debug output is lost then.
func (p *parser) debugOrDBName(_ string) error {
	g := p.g
	if g.bundle == "" && g.i > 0 && g.args[g.i-1] == "-d" && g.i < len(g.args) &&
		!strings.HasPrefix(g.args[g.i], "-") && p.o.DBName == "" {
		p.o.DBName = g.args[g.i]
		g.i++
		return nil
	}
	p.o.Debug = true
	p.log.debug = true
	return nil
}

// initOptions may only be given with -i.
var initOptions = map[string]handler{
	"I": func(p *parser, v string) error {
		p.o.InitSteps, p.o.initStepsGiven = v, true
		return p.checkInitSteps(v)
	},
	"q":                func(p *parser, _ string) error { p.o.Quiet = true; return nil },
	"F":                func(p *parser, v string) error { return p.intOption(v, "-F/--fillfactor", 10, &p.o.Fillfactor, 100) },
	"unlogged-tables":  func(p *parser, _ string) error { p.o.UnloggedTables = true; return nil },
	"tablespace":       func(p *parser, v string) error { p.o.Tablespace = v; return nil },
	"index-tablespace": func(p *parser, v string) error { p.o.IndexTablespace = v; return nil },
	"foreign-keys":     func(p *parser, _ string) error { p.o.ForeignKeys = true; return nil },
	"partitions":       func(p *parser, v string) error { return p.intOption(v, "--partitions", 0, &p.o.Partitions) },
	"partition-method": func(p *parser, v string) error {
		switch strings.ToLower(v) {
		case "range", "hash":
			p.o.PartitionMethod = strings.ToLower(v)
			return nil
		}
		return p.log.fatal("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"", v)
	},
}

// AllInitSteps are -I's step letters.
const AllInitSteps = "dtgGvpf"

func (p *parser) checkInitSteps(steps string) error {
	if steps == "" {
		return p.log.fatal("no initialization steps specified")
	}
	for _, c := range steps {
		if !strings.ContainsRune(AllInitSteps+" ", c) {
			p.log.error("unrecognized initialization step \"%c\"", c)
			p.log.detail("Allowed step characters are: \"%s\".", AllInitSteps)
			return &Exit{Code: 1}
		}
	}
	return nil
}

// intOption is PostgreSQL's option_parse_int: an int in [lo, hi] (hi is
// INT_MAX unless given), trailing blanks allowed.
func (p *parser) intOption(v, name string, lo int, dst *int, hi ...int) error {
	max := int64(1<<31 - 1)
	if len(hi) > 0 {
		max = int64(hi[0])
	}
	n, rest, overflow := strtol(v)
	if strings.TrimRight(rest, " \t\n\v\f\r") != "" {
		p.log.error("invalid value \"%s\" for option %s", v, name)
		return &Exit{Code: 1}
	}
	if overflow || n < -1<<31 || n > 1<<31-1 || n < int64(lo) || n > max {
		p.log.error("%s must be in range %d..%d", name, lo, max)
		return &Exit{Code: 1}
	}
	*dst = int(n)
	return nil
}

// addScript appends a script, at most 128 as pgbench.
func (p *parser) addScript(s Script) error {
	if len(p.o.Scripts) >= 128 {
		return p.log.fatal("at most %d SQL scripts are allowed", 128)
	}
	p.o.Scripts = append(p.o.Scripts, s)
	return nil
}

// scriptWeight splits "name@weight" at the last '@' as pgbench does.
func (p *parser) scriptWeight(v string) (string, int, error) {
	i := strings.LastIndexByte(v, '@')
	if i < 0 {
		return v, 1, nil
	}
	spec := v[i:]
	n, rest, overflow := strtol(v[i+1:])
	if overflow || len(rest) == len(v[i+1:]) || rest != "" {
		return "", 0, p.log.fatal("invalid weight specification: %s", spec)
	}
	if n > 1<<31-1 || n < 0 {
		return "", 0, p.log.fatal("weight specification out of range (0 .. %d): %d", 1<<31-1, n)
	}
	return v[:i], int(n), nil
}

func (p *parser) define(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" || value == "" {
		return p.log.fatal("invalid variable definition: \"%s\"", v)
	}
	if !validVariableName(name) {
		p.log.error("%s: invalid variable name: \"%s\"", "option", name)
		return &Exit{Code: 1}
	}
	for i := range p.o.Vars {
		if p.o.Vars[i].Name == name {
			p.o.Vars[i].Value = value
			return nil
		}
	}
	p.o.Vars = append(p.o.Vars, Var{name, value})
	return nil
}

// validVariableName: a letter, '_' or a non-ASCII byte, then also digits.
func validVariableName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 0x80 || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9'
		if !ok {
			return false
		}
	}
	return name != ""
}

func (p *parser) seed(v, from string) error {
	switch v {
	case "":
		p.o.RandomSeed = uint64(monotonicMicros())
		return nil
	case "time":
		p.o.RandomSeed = uint64(monotonicMicros())
	case "rand":
		p.o.RandomSeed = strongRandom()
	default:
		n, ok := scanUnsigned(v)
		if !ok {
			p.log.error("unrecognized random seed option \"%s\"", v)
			p.log.detail("Expecting an unsigned integer, \"time\" or \"rand\".")
			return p.log.fatal("error while setting random seed from %s", from)
		}
		p.o.RandomSeed = n
	}
	p.log.info("setting random seed to %d", p.o.RandomSeed)
	return nil
}
