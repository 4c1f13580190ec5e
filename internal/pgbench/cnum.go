package pgbench

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The C library's number parsing, which pgbench's options inherit: a
// leading-blank, prefix-only reading where the rest is left to the caller.

const cSpace = " \t\n\v\f\r"

// strtol reads a base-10 long at the start of s (after blanks, with a sign)
// and returns what follows; with no digits rest is all of s. overflow is
// strtol's ERANGE (the value saturates).
func strtol(s string) (n int64, rest string, overflow bool) {
	t := strings.TrimLeft(s, cSpace)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
	if digits == 0 {
		return 0, s, false
	}
	u, err := strconv.ParseUint(t[:digits], 10, 64)
	switch {
	case err != nil || !neg && u > math.MaxInt64:
		overflow, n = true, math.MaxInt64
		if neg {
			n = math.MinInt64
		}
	case neg && u > 1<<63:
		overflow, n = true, math.MinInt64
	case neg:
		n = -int64(u)
	default:
		n = int64(u)
	}
	return n, t[digits:], overflow
}

var floatPrefix = regexp.MustCompile(`^[+-]?(?i:(\d+\.?\d*|\.\d+)(e[+-]?\d+)?|inf(inity)?|nan)`)

// atof reads the longest float at the start of s; 0 when there is none.
func atof(s string) float64 {
	m := floatPrefix.FindString(strings.TrimLeft(s, cSpace))
	f, _ := strconv.ParseFloat(m, 64)
	return f
}

// scanUnsigned is sscanf("%lu%c") == 1: an unsigned long and nothing after
// (a minus sign wraps, as strtoul does).
func scanUnsigned(s string) (uint64, bool) {
	t := strings.TrimLeft(s, cSpace)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if t == "" || strings.Trim(t, "0123456789") != "" {
		return 0, false
	}
	u, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		u = math.MaxUint64
	} else if neg {
		u = -u
	}
	return u, true
}

// errnoText is strerror's text for err, as pgbench's %m prints it.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		m := errno.Error()
		return strings.ToUpper(m[:1]) + m[1:]
	}
	return err.Error()
}

func readAll(r io.Reader) (string, error) {
	b, err := io.ReadAll(r)
	return string(b), err
}

func nowMicros() int64 { return time.Now().UnixMicro() }

func strongRandom() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// clients is -c, with pgbench's check that the open file limit allows them.
func (p *parser) clients(v string) error {
	if err := p.intOption(v, "-c/--clients", 1, &p.o.Clients); err != nil {
		return err
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return p.log.fatal("getrlimit failed: %s", errnoText(err))
	}
	if rl.Cur < uint64(p.o.Clients)+3 {
		p.log.error("need at least %d open files, but system limit is %d", p.o.Clients+3, rl.Cur)
		p.log.hint("Reduce number of clients, or use limit/ulimit to increase the system limit.")
		return &Exit{Code: 1}
	}
	return nil
}
