package lang

import (
	"fmt"
	"strconv"
)

// Vars are a client's variables as pgbench keeps them: a variable set from
// text (-D, \setshell, \gset) becomes a value when an expression uses it,
// and one set to a value (\set) gets its text when SQL substitutes it.
type Vars struct{ m map[string]*variable }

type variable struct {
	text     string
	hasText  bool
	value    Value
	hasValue bool
}

// NewVars returns an empty set of variables.
func NewVars() *Vars { return &Vars{m: map[string]*variable{}} }

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

func (vs *Vars) create(context, name string) (*variable, error) {
	if v, ok := vs.m[name]; ok {
		return v, nil
	}
	if !ValidVariableName(name) {
		return nil, fmt.Errorf("%s: invalid variable name: \"%s\"", context, name)
	}
	v := &variable{}
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
	*v = variable{text: text, hasText: true}
	return nil
}

// Set is pgbench's putVariableValue.
func (vs *Vars) Set(context, name string, val Value) error {
	v, err := vs.create(context, name)
	if err != nil {
		return err
	}
	*v = variable{value: val, hasValue: true}
	return nil
}

// Has says whether the variable exists.
func (vs *Vars) Has(name string) bool { _, ok := vs.m[name]; return ok }

// Lookup returns a variable's value for an expression, parsing its text the
// first time (pgbench's makeVariableValue).
func (vs *Vars) Lookup(name string) (Value, error) {
	v, ok := vs.m[name]
	if !ok {
		return Value{}, evalErr("undefined variable \"%s\"", name)
	}
	if !v.hasValue {
		val, err := ParseValue(name, v.text)
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
	if !v.hasText {
		v.text, v.hasText = v.value.String(), true
	}
	return v.text, true
}

// AppendText appends a variable's text (as Text) to dst. An integer
// value is formatted into dst without keeping its text, so that a \set
// variable sent to the server allocates nothing.
func (vs *Vars) AppendText(dst []byte, name string) ([]byte, bool) {
	v, ok := vs.m[name]
	if !ok {
		return dst, false
	}
	if !v.hasText && v.value.Kind == Int {
		return strconv.AppendInt(dst, v.value.Int, 10), true
	}
	text, _ := vs.Text(name)
	return append(dst, text...), true
}

// Clone copies the variables (for each client's copy of -D values, and for
// restoring them before a retry).
func (vs *Vars) Clone() *Vars {
	c := &Vars{m: make(map[string]*variable, len(vs.m))}
	for k, v := range vs.m {
		cp := *v
		c.m[k] = &cp
	}
	return c
}
