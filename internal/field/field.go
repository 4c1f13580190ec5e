// Package field is the error a domain package returns for one bad option:
// which option (its field in the options struct), the value it holds, and
// what is valid, in the domain's own words. The domain does not know how the
// option was given; the edge that read it names it as the user wrote it:
// cmd by its flag (--conns), the plan reader by its key (workload.clients).
package field

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Error is one bad option value.
type Error struct {
	Field string // the option's field in its options struct, e.g. "Conns"
	Value any    // the value it holds

	// what says what is wrong and what is valid, fix what to do instead
	// (optional): {} stands for this option's name, {Other} for the name
	// of option Other; the rest is fmt's.
	what, fix text
	names     func(field string) string
	cause     error
}

// Because records the error that made the value bad, and returns e.
func (e *Error) Because(err error) *Error {
	e.cause = err
	return e
}

// Unwrap is the cause (Because), if any.
func (e *Error) Unwrap() error { return e.cause }

type text struct {
	format string
	args   []any
}

// New is the error for field holding value. In format, {} is the option's
// name and {Other} another option's (see Error); the rest is fmt's.
func New(field string, value any, format string, args ...any) *Error {
	return &Error{Field: field, Value: value, what: text{format, args}}
}

// Bad is the error for field holding value (as the user wrote it; "" to
// leave it out), which is wrong as wrong says and accepts accept ("" when
// wrong says it): "{} 10ms is too short; use {} 1s or more".
func Bad(field, value, wrong, accept string) *Error {
	e := New(field, value, "{} %s %s", value, wrong)
	if value == "" {
		e = New(field, value, "{}: %s", wrong)
	}
	if accept == "" {
		return e.Fix("fix {}")
	}
	return e.Fix("use {} %s", accept)
}

// Fix adds what to do instead, written as New's format, and returns e.
func (e *Error) Fix(format string, args ...any) *Error {
	e.fix = text{format, args}
	return e
}

// HasFix says whether e says what to do instead (Fix).
func (e *Error) HasFix() bool { return e.fix.format != "" }

// placeholder is {} or {Field} in a format.
var placeholder = regexp.MustCompile(`\{([A-Za-z]*)\}`)

// Error is what is wrong, then "; " and the fix if there is one, the options
// written by the names the edge gave (Rename), or else as Name writes them.
func (e *Error) Error() string {
	if !e.HasFix() {
		return e.render(e.what)
	}
	return e.render(e.what) + "; " + e.render(e.fix)
}

func (e *Error) render(t text) string {
	format := placeholder.ReplaceAllStringFunc(t.format, func(m string) string {
		f := strings.Trim(m, "{}")
		if f == "" {
			f = e.Field
		}
		name := ""
		if e.names != nil {
			name = e.names(f)
		}
		if name == "" {
			name = Name(f)
		}
		return strings.ReplaceAll(name, "%", "%%")
	})
	return fmt.Sprintf(format, t.args...)
}

// Name is how an option reads when nobody named it: its field in lower-case
// words joined by '-' ("DeliveryWorkers": "delivery-workers").
func Name(field string) string {
	rs := []rune(field)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && wordStarts(rs, i) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// wordStarts says the upper-case rune at i starts a word: after a lower-case
// letter or digit ("KillAfter"), or ending an acronym before a word
// ("WALRate"), but not before a plural "s" ("CPUs").
func wordStarts(rs []rune, i int) bool {
	prev := rs[i-1]
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	next := i + 1
	if next >= len(rs) || !unicode.IsLower(rs[next]) {
		return false
	}
	return !(rs[next] == 's' && next == len(rs)-1)
}

// Rename returns err with the options of its field error (if any) named by
// names, which returns "" for a field it does not name; the returned error
// still unwraps to everything err does.
func Rename(err error, names func(field string) string) error {
	var fe *Error
	if !errors.As(err, &fe) {
		return err
	}
	named := *fe
	named.names = names
	if err == error(fe) {
		return &named
	}
	return &renamed{err: err, text: strings.Replace(err.Error(), fe.Error(), named.Error(), 1)}
}

// Names returns the names of a map, field to name.
func Names(m map[string]string) func(string) string {
	return func(f string) string { return m[f] }
}

// renamed is an error whose field error, somewhere in its chain, is named.
type renamed struct {
	err  error
	text string
}

func (r *renamed) Error() string { return r.text }
func (r *renamed) Unwrap() error { return r.err }
