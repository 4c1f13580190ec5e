package lang

import (
	"strings"
)

// wordLexer reads the space-separated words of a backslash command, as
// exprscan.l's INITIAL state: backslash-newline continues the line.
type wordLexer struct {
	src string
	pos int
}

// next returns the next word and its offset, or ok=false at the end of the
// line (the newline is consumed) or of the input.
func (w *wordLexer) next() (word string, off int, ok bool) {
	src := w.src
	for w.pos < len(src) {
		c := src[w.pos]
		switch {
		case isSpace(c):
			w.pos++
			continue
		case c == '\n':
			w.pos++
			return "", -1, false
		}
		if n := continuation(src, w.pos); n > 0 {
			w.pos += n
			continue
		}
		start, end := w.pos, w.pos
		for end < len(src) && !isSpace(src[end]) && src[end] != '\n' {
			end++
		}
		word, w.pos = src[start:end], end
		if strings.HasSuffix(word, `\`) {
			if n := continuation(src, end-1); n > 0 { // word\<newline>: the word without the backslash
				word, w.pos = word[:len(word)-1], end-1+n
			}
		}
		return word, start, true
	}
	return "", -1, false
}

// metaParser holds what a meta-command's errors need.
type metaParser struct {
	file   string
	src    string
	start  int // offset of the backslash
	lineno int
	cmd    *Command
}

func (m *metaParser) errorf(msg, more string, hasMore bool, withText bool, end int, offset int) error {
	e := &SyntaxError{File: m.file, Line: m.lineno, Msg: msg, More: more, HasMore: hasMore,
		Command: m.cmd.Argv[0], Column: -1}
	if withText {
		e.Text, e.HasText = chompLine(m.src[m.start:end]), true
		if offset >= 0 {
			e.Column = offset - m.start
		}
	}
	return e
}

// parseMeta parses the backslash command whose name starts at *pos (just
// after the backslash); it returns nil for a lone backslash.
func parseMeta(file, src string, pos *int) (*Command, error) {
	w := &wordLexer{src: src, pos: *pos}
	defer func() { *pos = w.pos }()
	m := &metaParser{file: file, src: src, start: *pos - 1, lineno: lineOf(src, *pos-1)}
	name, _, ok := w.next()
	if !ok {
		return nil, nil
	}
	c := &Command{Argv: []string{name}, Meta: metaNames[strings.ToLower(name)], Line: m.lineno}
	m.cmd = c
	if c.Meta == MetaSet || c.Meta == MetaIf || c.Meta == MetaElif {
		return c, m.expression(w)
	}
	var offsets []int
	for {
		word, off, ok := w.next()
		if !ok {
			break
		}
		if len(c.Argv) >= maxArgs {
			return nil, m.errorf("too many arguments", "", false, false, 0, -1)
		}
		c.Argv, offsets = append(c.Argv, word), append(offsets, off)
	}
	c.FirstLine = chompLine(src[m.start:w.pos])
	return c, m.check(offsets, w.pos)
}

// expression parses \set's variable and expression, or \if's and \elif's.
func (m *metaParser) expression(w *wordLexer) error {
	c := m.cmd
	if c.Meta == MetaSet {
		v, _, ok := w.next()
		if !ok {
			return m.errorf("missing argument", "", false, false, 0, -1)
		}
		c.Var = v
		c.Argv = append(c.Argv, v)
	}
	e, end, err := parseExprAt(m.src, w.pos)
	if err != nil {
		w.pos = end
		return m.errorf(err.msg, err.more, err.hasMore, true, end, err.offset)
	}
	w.pos = end
	c.Expr = e
	c.FirstLine = chompLine(m.src[m.start:end])
	return nil
}

// check applies pgbench's argument checks; offsets are those of argv[1:].
func (m *metaParser) check(offsets []int, end int) error {
	c := m.cmd
	switch c.Meta {
	case MetaSleep:
		return m.checkSleep(offsets, end)
	case MetaSetShell:
		if len(c.Argv) < 3 {
			return m.errorf("missing argument", "", false, true, end, -1)
		}
	case MetaShell:
		if len(c.Argv) < 2 {
			return m.errorf("missing command", "", false, true, end, -1)
		}
	case MetaElse, MetaEndif, MetaStartPipeline, MetaSyncPipeline, MetaEndPipeline:
		if len(c.Argv) != 1 {
			return m.errorf("unexpected argument", "", false, true, end, -1)
		}
	case MetaGset, MetaAset:
		if len(c.Argv) > 2 {
			return m.errorf("too many arguments", "", false, true, end, -1)
		}
	case MetaNone:
		return m.errorf("invalid command", "", false, true, end, -1)
	}
	return nil
}

// checkSleep splits "\sleep 10ms" into number and unit and checks both.
func (m *metaParser) checkSleep(offsets []int, end int) error {
	c := m.cmd
	switch {
	case len(c.Argv) < 2:
		return m.errorf("missing argument", "", false, true, end, -1)
	case len(c.Argv) > 3:
		return m.errorf("too many arguments", "", false, true, end, offsets[2])
	}
	if arg := c.Argv[1]; arg[0] != ':' {
		i := 0
		if arg[0] == '+' || arg[0] == '-' {
			i++
		}
		digits := i
		for i < len(arg) && isDigit(arg[i]) {
			i++
		}
		if i < len(arg) {
			if len(c.Argv) != 2 || i == digits {
				return m.errorf("invalid sleep time, must be an integer", arg, true, true, end, offsets[0])
			}
			c.Argv = append(c.Argv, arg[i:])
			offsets = append(offsets, offsets[0]+i)
		}
	}
	if len(c.Argv) == 3 {
		switch strings.ToLower(c.Argv[2]) {
		case "us", "ms", "s":
		default:
			return m.errorf("unrecognized time unit, must be us, ms or s", c.Argv[2], true, true, end, offsets[1])
		}
	}
	return nil
}
