package lang

import "strings"

// scanResult is why the SQL scanner stopped.
type scanResult uint8

const (
	scanSemicolon scanResult = iota // a command-ending ';' (kept in the text)
	scanBackslash                   // a backslash command starts after pos
	scanEOF
)

// sqlScanner splits SQL as psql's lexer (psqlscan.l) does for pgbench:
// quotes, dollar quotes, comments, parentheses and CREATE FUNCTION ...
// BEGIN ATOMIC bodies hide semicolons and backslashes. pgbench passes no
// variable callback, so :name, :'name' and :"name" stay as written.
type sqlScanner struct {
	src          string
	pos          int
	parenDepth   int
	beginDepth   int
	idents       []byte // first letters of the leading CREATE [OR REPLACE] FUNCTION|PROCEDURE words
	identCount   int
	escapedSemis int // \; seen in the text the last scan returned
}

// scan collects the next SQL text; leading whitespace and "--" comments are
// dropped as psql drops them.
func (s *sqlScanner) scan() (string, scanResult) {
	var b strings.Builder
	s.escapedSemis = 0
	for s.pos < len(s.src) {
		src, i := s.src, s.pos
		c := src[i]
		switch {
		case isSQLSpace(c):
			j := i
			for j < len(src) && isSQLSpace(src[j]) {
				j++
			}
			s.emitWhitespace(&b, j)
		case strings.HasPrefix(src[i:], "--"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			s.emitWhitespace(&b, i+j)
		case strings.HasPrefix(src[i:], "/*"):
			s.emitTo(&b, s.commentEnd(i))
		case c == '\'':
			s.emitTo(&b, quoteEnd(src, i+1, '\'', false))
		case c == '"':
			s.emitTo(&b, quoteEnd(src, i+1, '"', false))
		case c == '$':
			s.emitTo(&b, dollarEnd(src, i))
		case isAlpha(c):
			s.word(&b)
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			s.emitTo(&b, numberEnd(src, i))
		case c == '(':
			s.parenDepth++
			s.emitTo(&b, i+1)
		case c == ')':
			if s.parenDepth > 0 {
				s.parenDepth--
			}
			s.emitTo(&b, i+1)
		case c == ';':
			s.emitTo(&b, i+1)
			if s.parenDepth == 0 && s.beginDepth == 0 {
				s.identCount = 0
				return b.String(), scanSemicolon
			}
		case c == '\\':
			if i+1 < len(src) && (src[i+1] == ';' || src[i+1] == ':') {
				b.WriteByte(src[i+1]) // \; and \: put the bare character in the query
				if src[i+1] == ';' {
					s.identCount = 0
					s.escapedSemis++
				}
				s.pos = i + 2
				continue
			}
			s.pos = i + 1
			return b.String(), scanBackslash
		default:
			s.emitTo(&b, i+1)
		}
	}
	return b.String(), scanEOF
}

func isSQLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func (s *sqlScanner) emitTo(b *strings.Builder, end int) {
	b.WriteString(s.src[s.pos:end])
	s.pos = end
}

// emitWhitespace keeps whitespace and "--" comments only inside a command.
func (s *sqlScanner) emitWhitespace(b *strings.Builder, end int) {
	if b.Len() > 0 {
		b.WriteString(s.src[s.pos:end])
	}
	s.pos = end
}

// commentEnd is the end of a (nested) slash-star comment starting at i.
func (s *sqlScanner) commentEnd(i int) int {
	depth, j := 0, i+2
	for j < len(s.src) {
		switch {
		case strings.HasPrefix(s.src[j:], "/*"):
			depth++
			j += 2
		case strings.HasPrefix(s.src[j:], "*/"):
			if depth == 0 {
				return j + 2
			}
			depth--
			j += 2
		default:
			j++
		}
	}
	return len(s.src)
}

// quoteEnd is the end of a quoted string or identifier whose body starts at
// i: a doubled quote is part of it; in E'...' strings a backslash escapes.
func quoteEnd(src string, i int, q byte, backslash bool) int {
	for i < len(src) {
		switch {
		case backslash && src[i] == '\\':
			i += 2
		case src[i] == q && i+1 < len(src) && src[i+1] == q:
			i += 2
		case src[i] == q:
			return i + 1
		default:
			i++
		}
	}
	return len(src)
}

// dollarEnd is the end of a dollar-quoted string at i, or i+1 when the
// dollar does not start one (a parameter $1, a lone $).
func dollarEnd(src string, i int) int {
	j := i + 1
	if j < len(src) && isDigit(src[j]) { // a parameter $1, with any junk after it
		return identEnd(src, scanDigits(src, j))
	}
	if j < len(src) && isAlpha(src[j]) {
		for j < len(src) && isAlnum(src[j]) {
			j++
		}
	}
	if j >= len(src) || src[j] != '$' {
		if j == i+1 {
			return i + 1
		}
		return j // $name without a closing $: psql reads it as text
	}
	delim := src[i : j+1]
	k := strings.Index(src[j+1:], delim)
	if k < 0 {
		return len(src)
	}
	return j + 1 + k + len(delim)
}

// word reads an identifier or keyword (or a prefixed string such as E'..',
// B'..', X'..', N'..', U&'..', U&"..") and tracks BEGIN ... END in
// CREATE FUNCTION/PROCEDURE bodies as psql does.
func (s *sqlScanner) word(b *strings.Builder) {
	src, i := s.src, s.pos
	if end, ok := prefixedString(src, i); ok {
		s.emitTo(b, end)
		return
	}
	j := i
	for j < len(src) && (isAlnum(src[j]) || src[j] == '$') {
		j++
	}
	s.trackBegin(src[i:j])
	s.emitTo(b, j)
}

func prefixedString(src string, i int) (int, bool) {
	if i+1 < len(src) && src[i+1] == '\'' {
		switch src[i] {
		case 'e', 'E':
			return quoteEnd(src, i+2, '\'', true), true
		case 'b', 'B', 'x', 'X', 'n', 'N':
			return quoteEnd(src, i+2, '\'', false), true
		}
	}
	if i+2 < len(src) && (src[i] == 'u' || src[i] == 'U') && src[i+1] == '&' && (src[i+2] == '\'' || src[i+2] == '"') {
		return quoteEnd(src, i+3, src[i+2], false), true
	}
	return 0, false
}

func (s *sqlScanner) trackBegin(w string) {
	if s.identCount == 0 {
		s.idents = s.idents[:0]
	}
	lw := strings.ToLower(w)
	switch lw {
	case "create", "function", "procedure", "or", "replace":
		if s.identCount < 4 {
			for len(s.idents) < s.identCount {
				s.idents = append(s.idents, 0)
			}
			s.idents = append(s.idents[:s.identCount], lw[0])
		}
	}
	s.identCount++
	if !s.inRoutineHeader() || s.parenDepth != 0 {
		return
	}
	switch lw {
	case "begin":
		s.beginDepth++
	case "case":
		if s.beginDepth >= 1 {
			s.beginDepth++
		}
	case "end":
		if s.beginDepth > 0 {
			s.beginDepth--
		}
	}
}

// inRoutineHeader: the statement starts CREATE [OR REPLACE] FUNCTION|PROCEDURE.
func (s *sqlScanner) inRoutineHeader() bool {
	id := func(k int) byte {
		if k < len(s.idents) {
			return s.idents[k]
		}
		return 0
	}
	return id(0) == 'c' && (id(1) == 'f' || id(1) == 'p' ||
		id(1) == 'o' && id(2) == 'r' && (id(3) == 'f' || id(3) == 'p'))
}

// numberEnd is the end of the numeric token at i as psql lexes it: an
// integer, decimal or real, with any identifier stuck to it ("1e" and
// "12abc" are single junk tokens, so the letter cannot start an E” string).
func numberEnd(src string, i int) int {
	j := scanDigits(src, i)
	if j < len(src) && src[j] == '.' && !(j+1 < len(src) && src[j+1] == '.') {
		j = scanDigits(src, j+1)
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
			if d := scanDigits(src, k); d > k {
				return identEnd(src, d)
			}
			return k // "1e+": realfail, the sign included
		}
		if d := scanDigits(src, k); d > k {
			return identEnd(src, d)
		}
	}
	return identEnd(src, j)
}

// identEnd extends a token at j over an identifier stuck to it.
func identEnd(src string, j int) int {
	if j < len(src) && isAlpha(src[j]) {
		for j < len(src) && (isAlnum(src[j]) || src[j] == '$') {
			j++
		}
	}
	return j
}
