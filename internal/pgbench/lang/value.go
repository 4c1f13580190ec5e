package lang

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a pgbench value.
type Kind uint8

// The kinds of values an expression yields.
const (
	Null Kind = iota
	Bool
	Int
	Double
)

// typeNames are pgbench's names of the kinds in its error messages.
var typeNames = [...]string{Null: "null", Bool: "boolean", Int: "int", Double: "double"}

func (k Kind) String() string { return typeNames[k] }

// Value is a pgbench value: NULL, a boolean, an int64 or a double.
type Value struct {
	Kind   Kind
	Bool   bool
	Int    int64
	Double float64
}

// Constructors of values.
func NullValue() Value            { return Value{Kind: Null} }
func BoolValue(b bool) Value      { return Value{Kind: Bool, Bool: b} }
func IntValue(i int64) Value      { return Value{Kind: Int, Int: i} }
func DoubleValue(d float64) Value { return Value{Kind: Double, Double: d} }
func (v Value) IsNull() bool      { return v.Kind == Null }

// String is the text pgbench substitutes for a variable holding v.
func (v Value) String() string {
	switch v.Kind {
	case Null:
		return "NULL"
	case Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	case Int:
		return strconv.FormatInt(v.Int, 10)
	}
	return formatDouble(v.Double)
}

// formatDouble is PostgreSQL's snprintf "%.15g" (DBL_DIG digits; it
// spells the special values NaN, Infinity and -Infinity).
func formatDouble(d float64) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(d, 'g', 15, 64)
}

// Truth is pgbench's valueTruth, used by \if and CASE: NULL is false,
// numbers are true when not zero.
func (v Value) Truth() bool {
	switch v.Kind {
	case Bool:
		return v.Bool
	case Int:
		return v.Int != 0
	case Double:
		return v.Double != 0
	}
	return false
}

// ParseValue turns variable name's text (from -D, \setshell, \gset) into
// a value as pgbench's makeVariableValue does: null, boolean words and their
// prefixes, an int64, else a double.
func ParseValue(name, s string) (Value, error) {
	switch {
	case s == "":
		return Value{}, &EvalError{} // pgbench fails without a message
	case strings.EqualFold(s, "null"):
		return NullValue(), nil
	case prefixFold(s, "true"), prefixFold(s, "yes"), strings.EqualFold(s, "on"):
		return BoolValue(true), nil
	case prefixFold(s, "false"), prefixFold(s, "no"), strings.EqualFold(s, "off"), strings.EqualFold(s, "of"):
		return BoolValue(false), nil
	case isAnInt(s):
		i, err := strToInt64(s)
		if err != nil {
			return Value{}, err
		}
		return IntValue(i), nil
	}
	d, ok := cStrtod(s)
	if !ok {
		return Value{}, &EvalError{Msg: fmt.Sprintf("malformed variable \"%s\" value: \"%s\"", name, s)}
	}
	return DoubleValue(d), nil
}

// parseValueBytes is ParseValue of text given as bytes: a plain decimal
// integer (what \gset of an integer column stores) without converting it
// to a string.
func parseValueBytes(name string, b []byte) (Value, error) {
	if i, ok := plainInt(b); ok {
		return IntValue(i), nil
	}
	return ParseValue(name, string(b))
}

// plainInt reads an optional minus sign and 1 to 18 decimal digits, which
// cannot overflow: ParseValue would read them as the same int.
func plainInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var i int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		i = 10*i + int64(c-'0')
	}
	if neg {
		i = -i
	}
	return i, true
}

// cStrtod is strtod over the whole string: leading spaces allowed, nothing
// after the number, and false where C sets ERANGE (overflow, underflow).
func cStrtod(s string) (float64, bool) {
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	if t == "" || strings.Contains(t, "_") {
		return 0, false
	}
	d, err := strconv.ParseFloat(t, 64)
	if err != nil && isHex(t) && !strings.ContainsAny(t, "pP") {
		d, err = strconv.ParseFloat(t+"p0", 64) // C reads hex without an exponent; Go wants one
	}
	if err != nil {
		return 0, false
	}
	if d != 0 && math.Abs(d) < 0x1p-1022 && !math.IsInf(d, 0) {
		return 0, false // subnormal: glibc reports ERANGE
	}
	if d == 0 && strings.ContainsAny(mantissa(t), "123456789") {
		return 0, false
	}
	return d, true
}

// mantissa is the part of a decimal number before its exponent.
func mantissa(t string) string {
	if strings.HasPrefix(strings.ToLower(strings.TrimLeft(t, "+-")), "0x") {
		if i := strings.IndexAny(t, "pP"); i >= 0 {
			return t[2:i]
		}
		return t[2:]
	}
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		return t[:i]
	}
	return t
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// prefixFold is pg_strncasecmp(s, word, len(s)) == 0.
func prefixFold(s, word string) bool {
	return len(s) <= len(word) && strings.EqualFold(s, word[:len(s)])
}

func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isAnInt is pgbench's is_an_int: spaces, a sign, digits and nothing else.
func isAnInt(s string) bool {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && !isDigit(s[i]) {
		return false
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i == len(s)
}

// strToInt64 is pgbench's strtoint64 with its error texts.
func strToInt64(s string) (int64, error) {
	t := strings.TrimRight(strings.TrimLeft(s, " \t\n\r\f\v"), " \t\n\r\f\v")
	v, err := strconv.ParseInt(t, 10, 64)
	if err == nil && t != "" && t[0] != '_' && !strings.Contains(t, "_") {
		return v, nil
	}
	if isRangeErr(err) {
		return 0, &EvalError{Msg: fmt.Sprintf("value \"%s\" is out of range for type bigint", s)}
	}
	return 0, &EvalError{Msg: fmt.Sprintf("invalid input syntax for type bigint: \"%s\"", s)}
}

func isHex(t string) bool {
	t = strings.TrimLeft(t, "+-")
	return len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')
}
