package lang

import (
	"fmt"
	"slices"
	"strconv"
)

// Vars are a client's variables as pgbench keeps them: a variable set from
// text (-D, \setshell, \gset) becomes a value when an expression uses it,
// and one set to a value (\set) gets its text when SQL substitutes it.
type Vars struct{ m map[string]*Var }

// Var is one variable of a Vars. Variables are never removed, so an engine
// may keep a *Var it found (Find) for its client's life rather than look
// the name up on every use. Its text lives in a buffer it reuses, so that
// setting it from a query's result (\gset) allocates nothing.
type Var struct {
	text     []byte
	hasText  bool
	value    Value
	hasValue bool
}

// NewVars returns an empty set of variables.
func NewVars() *Vars { return &Vars{m: map[string]*Var{}} }

// ValidVariableName is pgbench's valid_variable_name: ASCII letters, digits,
// underscores and any non-ASCII byte, not starting with a digit.
func ValidVariableName(name string) bool {
	if name == "" || isDigit(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isAlnum(name[i]) {
			return false
		}
	}
	return true
}

func (vs *Vars) create(context, name string) (*Var, error) {
	if v, ok := vs.m[name]; ok {
		return v, nil
	}
	if !ValidVariableName(name) {
		return nil, fmt.Errorf("%s: invalid variable name: \"%s\"", context, name)
	}
	v := &Var{}
	vs.m[name] = v
	return v, nil
}

// SetText is pgbench's putVariable; context names the caller in errors
// ("option -D", "setshell", "gset", ...).
func (vs *Vars) SetText(context, name, text string) error {
	v, err := vs.create(context, name)
	if err != nil {
		return err
	}
	v.text, v.hasText, v.hasValue = append(v.text[:0], text...), true, false
	return nil
}

// SetBytes is SetText of text given as bytes, which the variable copies.
func (vs *Vars) SetBytes(context, name string, text []byte) error {
	v, err := vs.create(context, name)
	if err != nil {
		return err
	}
	v.text, v.hasText, v.hasValue = append(v.text[:0], text...), true, false
	return nil
}

// Set is pgbench's putVariableValue.
func (vs *Vars) Set(context, name string, val Value) error {
	v, err := vs.create(context, name)
	if err != nil {
		return err
	}
	v.Set(val)
	return nil
}

// Set gives the variable v the value val (as Vars.Set).
func (v *Var) Set(val Value) {
	v.value, v.hasValue, v.hasText = val, true, false
}

// Has says whether the variable exists.
func (vs *Vars) Has(name string) bool { _, ok := vs.m[name]; return ok }

// Find returns the variable, nil when it is not defined.
func (vs *Vars) Find(name string) *Var { return vs.m[name] }

// Lookup returns a variable's value for an expression, parsing its text the
// first time (pgbench's makeVariableValue).
func (vs *Vars) Lookup(name string) (Value, error) {
	v, ok := vs.m[name]
	if !ok {
		return Value{}, evalErr("undefined variable \"%s\"", name)
	}
	return v.Value(name)
}

// Value is Lookup of the variable v, named name.
func (v *Var) Value(name string) (Value, error) {
	if !v.hasValue {
		val, err := parseValueBytes(name, v.text)
		if err != nil {
			return Value{}, err
		}
		v.value, v.hasValue = val, true
	}
	return v.value, nil
}

// Text returns a variable's text for substitution (pgbench's getVariable).
func (vs *Vars) Text(name string) (string, bool) {
	v, ok := vs.m[name]
	if !ok {
		return "", false
	}
	return v.Text(), true
}

// Text is the variable's text, formatted from its value the first time.
func (v *Var) Text() string { return string(v.bytes()) }

// bytes is the variable's text, formatted from its value the first time.
func (v *Var) bytes() []byte {
	if !v.hasText {
		v.text, v.hasText = append(v.text[:0], v.value.String()...), true
	}
	return v.text
}

// AppendText appends a variable's text (as Text) to dst.
func (vs *Vars) AppendText(dst []byte, name string) ([]byte, bool) {
	v, ok := vs.m[name]
	if !ok {
		return dst, false
	}
	return v.AppendText(dst), true
}

// AppendText appends the variable's text to dst. An integer value is
// formatted into dst without keeping its text, so that a \set variable
// sent to the server allocates nothing.
func (v *Var) AppendText(dst []byte) []byte {
	if !v.hasText && v.value.Kind == Int {
		return strconv.AppendInt(dst, v.value.Int, 10)
	}
	return append(dst, v.bytes()...)
}

// Clone copies the variables (for each client's copy of -D values, and for
// restoring them before a retry).
func (vs *Vars) Clone() *Vars {
	c := &Vars{m: make(map[string]*Var, len(vs.m))}
	for k, v := range vs.m {
		cp := *v
		cp.text = slices.Clone(v.text) // each variable reuses its own buffer
		c.m[k] = &cp
	}
	return c
}
