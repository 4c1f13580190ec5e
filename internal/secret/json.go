package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// JSON returns the JSON document doc with every secret redacted by Redact: a
// member's string value by the member's name (a map of settings), the
// "value", "setting", "boot_val" or "reset_val" of an object by the object's
// "name" member written before it (a setting as pgoltp's types write it), and
// any string holding a password. Members keep their order and numbers their
// digits; the result is indented with two spaces, as pgoltp writes JSON.
func JSON(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	r := rewriter{}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := r.token(tok); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	if err := json.Indent(&out, r.out.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// valueOfName are the members that hold the value of the object's "name".
var valueOfName = map[string]bool{"value": true, "setting": true, "boot_val": true, "reset_val": true}

// level is one open object or array.
type level struct {
	object bool
	items  int    // members or elements written so far
	key    string // the member whose value comes next, when keyed
	keyed  bool   // a member's name was read, its value comes next
	name   string // the object's "name" member, once read
}

// rewriter writes the tokens of a document back, compact, redacting.
type rewriter struct {
	out   bytes.Buffer
	stack []level
}

func (r *rewriter) top() *level {
	if len(r.stack) == 0 {
		return nil
	}
	return &r.stack[len(r.stack)-1]
}

func (r *rewriter) token(tok json.Token) error {
	l := r.top()
	if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
		r.out.WriteByte(byte(d))
		r.stack = r.stack[:len(r.stack)-1]
		return nil
	}
	if l != nil && l.object && !l.keyed { // a member's name
		if l.items > 0 {
			r.out.WriteByte(',')
		}
		l.key, l.keyed = tok.(string), true
		return r.write(l.key, ':')
	}
	if l != nil && !l.object && l.items > 0 {
		r.out.WriteByte(',')
	}
	if d, ok := tok.(json.Delim); ok {
		r.out.WriteByte(byte(d))
		r.done(l) // before the append moves the stack
		r.stack = append(r.stack, level{object: d == '{'})
		return nil
	}
	if s, ok := tok.(string); ok {
		tok = r.redact(l, s)
	}
	r.done(l)
	return r.write(tok, 0)
}

// redact applies Redact to a string value, named by its member or by its
// object's "name".
func (r *rewriter) redact(l *level, s string) string {
	if l == nil || !l.object {
		return Redact("", s)
	}
	if l.key == "name" {
		l.name = s
	}
	if valueOfName[l.key] && l.name != "" && Redact(l.name, s) != s {
		return Redacted
	}
	return Redact(l.key, s)
}

// done counts a value written in l and readies it for the next member.
func (r *rewriter) done(l *level) {
	if l != nil {
		l.items++
		l.key, l.keyed = "", false
	}
}

func (r *rewriter) write(v any, then byte) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r.out.Write(b)
	if then != 0 {
		r.out.WriteByte(then)
	}
	return nil
}

// WriteJSON writes v to w as pgoltp writes JSON (indented, one value and a
// newline) with every secret redacted (JSON).
func WriteJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if b, err = JSON(b); err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
