package lang

import "strings"

// tokKind is a token of the expression lexer.
type tokKind uint8

const (
	tEnd tokKind = iota // newline or end of input
	tOp                 // an operator or punctuation; text says which
	tInt
	tMaxIntPlusOne // 9223372036854775808, valid only after a unary minus
	tDouble
	tVar
	tFunc
	tNull
	tBool
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEndKw
)

type token struct {
	kind  tokKind
	text  string
	ival  int64
	dval  float64
	bval  bool
	start int // offset in the script
	end   int // offset just past the token (past the newline for tEnd)
}

// lexError is an error the lexer raises at a token.
type lexError struct {
	msg, more string
	end       int
}

// keywords of the expression language; longer identifiers are functions.
var keywords = map[string]tokKind{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull, "notnull": tNotNull,
	"case": tCase, "when": tWhen, "then": tThen, "else": tElse, "end": tEndKw,
	"null": tNull, "true": tBool, "false": tBool,
}

var twoCharOps = []string{"<>", "!=", "<=", ">=", "<<", ">>"}

const oneCharOps = "+-*/%=<>|&#~(),"

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// continuation is the length of a backslash-newline at i, or 0.
func continuation(src string, i int) int {
	if i < len(src) && src[i] == '\\' {
		if i+1 < len(src) && src[i+1] == '\n' {
			return 2
		}
		if i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n' {
			return 3
		}
	}
	return 0
}

// lexExpr reads the expression token at pos, as exprscan.l's EXPR state.
func lexExpr(src string, pos int) (token, *lexError) {
	for {
		if pos < len(src) && isSpace(src[pos]) {
			pos++
		} else if n := continuation(src, pos); n > 0 {
			pos += n
		} else {
			break
		}
	}
	if pos >= len(src) {
		return token{kind: tEnd, start: pos, end: pos}, nil
	}
	c := src[pos]
	switch {
	case c == '\n':
		return token{kind: tEnd, start: pos, end: pos + 1}, nil
	case isDigit(c) || c == '.' && pos+1 < len(src) && isDigit(src[pos+1]):
		return lexNumber(src, pos)
	case c == ':' && pos+1 < len(src) && isAlnum(src[pos+1]):
		end := pos + 1
		for end < len(src) && isAlnum(src[end]) {
			end++
		}
		return token{kind: tVar, text: src[pos+1 : end], start: pos, end: end}, nil
	case isAlpha(c):
		end := pos
		for end < len(src) && isAlnum(src[end]) {
			end++
		}
		word := src[pos:end]
		t := token{kind: tFunc, text: word, start: pos, end: end}
		if k, ok := keywords[strings.ToLower(word)]; ok {
			t.kind, t.bval = k, strings.EqualFold(word, "true")
		}
		return t, nil
	}
	for _, op := range twoCharOps {
		if strings.HasPrefix(src[pos:], op) {
			return token{kind: tOp, text: op, start: pos, end: pos + 2}, nil
		}
	}
	if strings.IndexByte(oneCharOps, c) >= 0 {
		return token{kind: tOp, text: src[pos : pos+1], start: pos, end: pos + 1}, nil
	}
	return token{}, &lexError{msg: "unexpected character", more: src[pos : pos+1], end: pos + 1}
}

func scanDigits(src string, i int) int {
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	return i
}

// lexNumber reads an integer or a double constant, with flex's longest
// match: digits, an optional fraction, an optional complete exponent.
func lexNumber(src string, pos int) (token, *lexError) {
	end := scanDigits(src, pos)
	isDouble := false
	if end < len(src) && src[end] == '.' {
		end = scanDigits(src, end+1)
		isDouble = true
	}
	if end < len(src) && (src[end] == 'e' || src[end] == 'E') {
		e := end + 1
		if e < len(src) && (src[e] == '+' || src[e] == '-') {
			e++
		}
		if d := scanDigits(src, e); d > e {
			end, isDouble = d, true
		}
	}
	text := src[pos:end]
	if isDouble {
		d, ok := cStrtod(text)
		if !ok {
			return token{}, &lexError{msg: "double constant overflow", more: text, end: end}
		}
		return token{kind: tDouble, text: text, dval: d, start: pos, end: end}, nil
	}
	if text == "9223372036854775808" {
		return token{kind: tMaxIntPlusOne, text: text, start: pos, end: end}, nil
	}
	i, err := strToInt64(text)
	if err != nil {
		return token{}, &lexError{msg: "bigint constant overflow", more: text, end: end}
	}
	return token{kind: tInt, text: text, ival: i, start: pos, end: end}, nil
}
