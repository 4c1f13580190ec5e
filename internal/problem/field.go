package problem

import (
	"errors"
	"strings"
)

// Field is bad input in one field of a package's options, said in the
// domain's words: which field, the value as given, what is wrong with it and
// what the field accepts. It names no flag and no plan key: the command maps
// it to the flag the user wrote (Named), a plan reader to the key. Unnamed,
// it is still bad input (exit 2), shown with the field's own name.
type Field struct {
	Name   string // the option's field: "Format", "KillAfter"
	Value  string // the value as given, quoted if a string: `"xml"`, "-1"; "" to leave it out
	Wrong  string // what is wrong with it: "is not an output format"
	Accept string // what the field accepts: "conf, sql or json", "1s or more"; "" if it is said in Wrong
	Err    error  // the cause, if any
}

// BadField returns the Field error of name: value is wrong; it accepts accept.
func BadField(name, value, wrong, accept string) *Field {
	return &Field{Name: name, Value: value, Wrong: wrong, Accept: accept}
}

func (f *Field) Error() string { return f.For(f.Name).Error() }

func (f *Field) Unwrap() error { return f.Err }

// For is the Field as a Problem about name, the flag or key the user wrote:
// "--format "xml" is not an output format; use --format conf, sql or json".
func (f *Field) For(name string) *Problem {
	what := name + ": " + f.Wrong
	if f.Value != "" {
		what = name + " " + f.Value + " " + f.Wrong
	}
	fix := "fix " + name
	if f.Accept != "" {
		fix = "use " + name + " " + f.Accept
	}
	return &Problem{What: what, Fix: fix, Code: ExitBadInput, Err: f.Err}
}

// Named turns a Field error in err into the Problem about the name names
// gives its field (a flag, a plan key); any other error passes through.
func Named(err error, names map[string]string) error {
	var f *Field
	if !errors.As(err, &f) {
		return err
	}
	if name, ok := names[f.Name]; ok {
		return f.For(name)
	}
	return f.For(strings.ToLower(f.Name))
}
