// Package javaprops reads files in the format of java.util.Properties.load,
// the format of BenchmarkSQL's configuration (and of many Java tools'): one
// key and value per logical line, "=", ":" or blanks between them, lines
// ending in an odd number of backslashes continued on the next, "#" and "!"
// comment lines, and backslash escapes (\t \n \r \f \uXXXX; any other
// escaped character stands for itself).
package javaprops

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Property is one key and value, with the line it starts on.
type Property struct {
	Key, Value string
	Line       int
}

// Parse reads every property of r in file order; a later duplicate key is
// kept as well (Java keeps the last one: Last does the same).
func Parse(r io.Reader) ([]Property, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var props []Property
	var logical strings.Builder
	lineNo, start := 0, 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if logical.Len() == 0 {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			start = lineNo
		} else {
			line = strings.TrimLeft(line, " \t\f") // a continuation drops its leading blanks
		}
		if continues(line) {
			logical.WriteString(line[:len(line)-1])
			continue
		}
		logical.WriteString(line)
		p, err := split(logical.String(), start)
		if err != nil {
			return nil, err
		}
		props = append(props, p)
		logical.Reset()
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if logical.Len() > 0 {
		p, err := split(logical.String(), start)
		if err != nil {
			return nil, err
		}
		props = append(props, p)
	}
	return props, nil
}

// Last returns the value of the last property named key.
func Last(props []Property, key string) (Property, bool) {
	for i := len(props) - 1; i >= 0; i-- {
		if props[i].Key == key {
			return props[i], true
		}
	}
	return Property{}, false
}

// continues reports whether line ends in an odd number of backslashes.
func continues(line string) bool {
	n := len(line) - len(strings.TrimRight(line, `\`))
	return n%2 == 1
}

// split cuts a logical line into its key and value and unescapes both.
func split(line string, lineNo int) (Property, error) {
	end := 0
	for end < len(line) {
		c := line[end]
		if c == '\\' {
			end += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		end++
	}
	if end > len(line) {
		end = len(line)
	}
	rest := strings.TrimLeft(line[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	key, err := unescape(line[:end])
	if err != nil {
		return Property{}, fmt.Errorf("line %d: %w", lineNo, err)
	}
	value, err := unescape(rest)
	if err != nil {
		return Property{}, fmt.Errorf("line %d: %w", lineNo, err)
	}
	return Property{Key: key, Value: value, Line: lineNo}, nil
}

// unescape resolves the backslash escapes of s.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uXXXX escape")
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", fmt.Errorf("malformed \\uXXXX escape %q", s[i-1:i+5])
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
