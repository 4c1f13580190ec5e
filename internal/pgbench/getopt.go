package pgbench

import (
	"fmt"
	"io"
	"strings"
)

// argKind says whether an option takes a value, as getopt_long's has_arg.
type argKind int

const (
	noArg argKind = iota
	requiredArg
)

// longOption is one entry of pgbench's long option table: its name, whether
// it takes a value and the key the option loop switches on (the short letter,
// or a name for long-only options).
type longOption struct {
	name string
	kind argKind
	key  string
}

// getopt walks argv as glibc's getopt_long does for pgbench: options and
// operands may be interleaved (operands are set aside, "permuted", unless
// POSIXLY_CORRECT is set), "--" ends the options, short options bundle
// (-nc8), take their value attached or from the next argument, and long
// options take "=value" or the next argument and may be abbreviated to any
// unambiguous prefix. Errors are printed the way glibc prints them.
type getopt struct {
	args     []string // argv without the program name
	short    string   // optstring, e.g. "iI:h:"
	long     []longOption
	posix    bool // POSIXLY_CORRECT: stop at the first operand
	stderr   io.Writer
	prog     string
	i        int    // next argument to look at
	bundle   string // rest of a bundle of short options ("c8" of "-nc8")
	operands []string
	done     bool
}

// next returns the next option's key and value. ok is false when the options
// are exhausted; bad is true when an error was printed (pgbench then adds its
// hint and exits 1).
func (g *getopt) next() (key, value string, ok, bad bool) {
	if g.bundle != "" {
		return g.shortOption()
	}
	for !g.done && g.i < len(g.args) {
		a := g.args[g.i]
		switch {
		case a == "--":
			g.i++
			g.done = true
		case strings.HasPrefix(a, "--"):
			g.i++
			return g.longOption(a[2:])
		case strings.HasPrefix(a, "-") && a != "-":
			g.i++
			g.bundle = a[1:]
			return g.shortOption()
		default:
			g.i++
			g.operands = append(g.operands, a)
			if g.posix {
				g.done = true
			}
		}
	}
	g.operands = append(g.operands, g.args[g.i:]...)
	g.i = len(g.args)
	return "", "", false, false
}

func (g *getopt) shortOption() (key, value string, ok, bad bool) {
	c := g.bundle[0]
	g.bundle = g.bundle[1:]
	at := strings.IndexByte(g.short, c)
	if c == ':' || at < 0 {
		fmt.Fprintf(g.stderr, "%s: invalid option -- '%c'\n", g.prog, c)
		return "?", "", true, true
	}
	if at+1 >= len(g.short) || g.short[at+1] != ':' {
		return string(c), "", true, false
	}
	if g.bundle != "" {
		value, g.bundle = g.bundle, ""
		return string(c), value, true, false
	}
	if g.i >= len(g.args) {
		fmt.Fprintf(g.stderr, "%s: option requires an argument -- '%c'\n", g.prog, c)
		return "?", "", true, true
	}
	g.i++
	return string(c), g.args[g.i-1], true, false
}

func (g *getopt) longOption(arg string) (key, value string, ok, bad bool) {
	name, value, hasValue := strings.Cut(arg, "=")
	opt, found := g.findLong(arg, name)
	if !found {
		return "?", "", true, true
	}
	switch {
	case opt.kind == noArg && hasValue:
		fmt.Fprintf(g.stderr, "%s: option '--%s' doesn't allow an argument\n", g.prog, opt.name)
		return "?", "", true, true
	case opt.kind == requiredArg && !hasValue:
		if g.i >= len(g.args) {
			fmt.Fprintf(g.stderr, "%s: option '--%s' requires an argument\n", g.prog, opt.name)
			return "?", "", true, true
		}
		value = g.args[g.i]
		g.i++
	}
	return opt.key, value, true, false
}

// findLong finds a long option by its exact name or an unambiguous prefix,
// printing glibc's complaint when there is none or several.
func (g *getopt) findLong(arg, name string) (longOption, bool) {
	var matches []longOption
	for _, o := range g.long {
		if o.name == name {
			return o, true
		}
		if strings.HasPrefix(o.name, name) {
			matches = append(matches, o)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], true
	case 0:
		fmt.Fprintf(g.stderr, "%s: unrecognized option '--%s'\n", g.prog, arg)
	default:
		fmt.Fprintf(g.stderr, "%s: option '--%s' is ambiguous; possibilities:", g.prog, arg)
		for _, o := range matches {
			fmt.Fprintf(g.stderr, " '--%s'", o.name)
		}
		fmt.Fprintln(g.stderr)
	}
	return longOption{}, false
}
