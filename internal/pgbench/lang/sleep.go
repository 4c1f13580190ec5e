package lang

import (
	"fmt"
	"strings"
)

// SleepMicros is the duration of a \sleep command, as pgbench's
// evaluateSleep computes it (C int arithmetic, atoi parsing): a variable
// argument is looked up by its text.
func (c *Command) SleepMicros(lookup func(name string) (string, bool)) (int32, error) {
	arg := c.Argv[1]
	var usec int32
	if arg[0] == ':' {
		v, ok := lookup(arg[1:])
		if !ok {
			return 0, fmt.Errorf("%s: undefined variable \"%s\"", c.Argv[0], arg[1:])
		}
		usec = atoi(v)
		if usec == 0 && (v == "" || !isDigit(v[0])) {
			return 0, fmt.Errorf("%s: invalid sleep time \"%s\" for variable \"%s\"", c.Argv[0], v, arg[1:])
		}
	} else {
		usec = atoi(arg)
	}
	unit := "s"
	if len(c.Argv) > 2 {
		unit = strings.ToLower(c.Argv[2])
	}
	switch unit {
	case "ms":
		usec *= 1000
	case "s":
		usec *= 1000000
	}
	return usec, nil
}

// atoi is C's atoi: spaces, a sign, digits, the rest ignored (32-bit wrap).
func atoi(s string) int32 {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v uint64
	over := false
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if v > (1<<63-d)/10 {
			over = true
		}
		v = v*10 + d
	}
	// strtol saturates at LONG_MAX/LONG_MIN; atoi then truncates to int.
	switch {
	case over && neg:
		v = 1 << 63
	case over:
		v = 1<<63 - 1
	case neg:
		v = -v
	}
	return int32(v)
}
