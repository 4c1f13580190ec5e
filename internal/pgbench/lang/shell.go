package lang

import (
	"fmt"
	"strconv"
	"strings"
)

// shellCommandSize is pgbench's SHELL_COMMAND_SIZE.
const shellCommandSize = 256

// ShellCommand is the command line \shell or \setshell runs through
// /bin/sh, joined as pgbench's runShellCommand joins it: words separated by
// one space, ":var" replaced by the variable's text, "::x" written ":x".
// Errors name the command's first word, as pgbench's do.
func (c *Command) ShellCommand(text func(name string) (string, bool)) (string, error) {
	words := c.Argv[1:]
	if c.Meta == MetaSetShell {
		words = c.Argv[2:]
	}
	var b strings.Builder
	for i, w := range words {
		arg := w
		switch {
		case !strings.HasPrefix(w, ":"):
		case strings.HasPrefix(w, "::"):
			arg = w[1:]
		default:
			v, ok := text(w[1:])
			if !ok {
				return "", fmt.Errorf("%s: undefined variable \"%s\"", words[0], w)
			}
			arg = v
		}
		sep := 0
		if i > 0 {
			sep = 1
		}
		if b.Len()+len(arg)+sep >= shellCommandSize-1 {
			return "", fmt.Errorf("%s: shell command is too long", words[0])
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(arg)
	}
	return b.String(), nil
}

// ShellResult is the integer \setshell assigns from its command's output:
// the first line (as fgets reads at most 63 bytes of it), an integer with
// optional spaces around it, truncated to a C int as pgbench does.
func (c *Command) ShellResult(output string) (int64, error) {
	first := output
	if len(first) > 63 {
		first = first[:63]
	}
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i+1]
	}
	name := c.Argv[2]
	if output == "" { // fgets read nothing
		return 0, fmt.Errorf("%s: could not read result of shell command", name)
	}
	t := strings.TrimLeft(first, " \t\n\r\f\v")
	end := 0
	if end < len(t) && (t[end] == '+' || t[end] == '-') {
		end++
	}
	digits := end
	for end < len(t) && isDigit(t[end]) {
		end++
	}
	rest := strings.TrimLeft(t[end:], " \t\n\r\f\v")
	if first == "" || rest != "" || end == digits && t != "" {
		return 0, fmt.Errorf("%s: shell command must return an integer (not \"%s\")", name, first)
	}
	v, err := strconv.ParseInt(t[:end], 10, 64)
	if err != nil && end > digits {
		v = 1<<63 - 1 // strtol saturates
		if t[0] == '-' {
			v = -1 << 63
		}
	}
	return int64(int32(v)), nil
}
