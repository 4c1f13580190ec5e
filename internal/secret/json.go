package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// JSON returns the JSON document doc with every secret redacted by Redact: a
// member's string value by the member's name (a map of settings), the
// "value", "setting", "boot_val" or "reset_val" of an object by the object's
// "name" member written before it (a setting as pgoltp's types write it), and
// any string holding a password. Everything else is copied byte for byte:
// member order, numbers and layout are kept.
func JSON(doc []byte) ([]byte, error) {
	s := scanner{in: doc, out: make([]byte, 0, len(doc))}
	for s.i < len(s.in) {
		if err := s.step(); err != nil {
			return nil, err
		}
	}
	if len(s.stack) != 0 {
		return nil, fmt.Errorf("redacting JSON: %d unclosed objects or arrays", len(s.stack))
	}
	return s.out, nil
}

// WriteJSON writes v to w as pgoltp writes JSON (indented by two spaces, a
// newline at the end) with every secret redacted (JSON).
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	b, err := JSON(buf.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// valueOfName are the members that hold the value of the object's "name".
var valueOfName = map[string]bool{"value": true, "setting": true, "boot_val": true, "reset_val": true}

// level is one open object or array.
type level struct {
	object bool
	key    string // the member whose value comes next, when keyed
	keyed  bool   // a member's name was read, its value comes next
	name   string // the object's "name" member, once read
}

// scanner copies a JSON document from in to out, replacing secret strings.
type scanner struct {
	in, out []byte
	i       int
	stack   []level
}

func (s *scanner) top() *level {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

// step copies one token (or one byte of punctuation and space).
func (s *scanner) step() error {
	c := s.in[s.i]
	switch c {
	case '{', '[':
		s.valueDone()
		s.stack = append(s.stack, level{object: c == '{'})
	case '}', ']':
		if len(s.stack) == 0 {
			return fmt.Errorf("redacting JSON: unbalanced %q at byte %d", c, s.i)
		}
		s.stack = s.stack[:len(s.stack)-1]
	case '"':
		return s.str()
	case ',', ':', ' ', '\t', '\r', '\n':
	default: // a number, true, false or null
		j := s.i
		for j < len(s.in) && bytes.IndexByte([]byte(",]} \t\r\n"), s.in[j]) < 0 {
			j++
		}
		s.out = append(s.out, s.in[s.i:j]...)
		s.i = j
		s.valueDone()
		return nil
	}
	s.out = append(s.out, c)
	s.i++
	return nil
}

// str copies a string: a member's name, or a value redacted as needed.
func (s *scanner) str() error {
	j := s.i + 1
	for j < len(s.in) && s.in[j] != '"' {
		if s.in[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s.in) {
		return fmt.Errorf("redacting JSON: unterminated string at byte %d", s.i)
	}
	raw := s.in[s.i : j+1]
	s.i = j + 1
	text := string(raw[1 : len(raw)-1])
	if bytes.IndexByte(raw, '\\') >= 0 {
		if err := json.Unmarshal(raw, &text); err != nil {
			return fmt.Errorf("redacting JSON: %w", err)
		}
	}
	l := s.top()
	if l != nil && l.object && !l.keyed {
		l.key, l.keyed = text, true
		s.out = append(s.out, raw...)
		return nil
	}
	if shown := s.redact(l, text); shown != text {
		q, _ := json.Marshal(shown)
		s.out = append(s.out, q...)
	} else {
		s.out = append(s.out, raw...)
	}
	s.valueDone()
	return nil
}

// redact applies Redact to a string value, named by its member or by its
// object's "name".
func (s *scanner) redact(l *level, v string) string {
	if l == nil || !l.object {
		return Redact("", v)
	}
	if l.key == "name" {
		l.name = v
	}
	if valueOfName[l.key] && l.name != "" && Redact(l.name, v) != v {
		return Redacted
	}
	return Redact(l.key, v)
}

// valueDone readies the current object for its next member.
func (s *scanner) valueDone() {
	if l := s.top(); l != nil {
		l.key, l.keyed = "", false
	}
}
