package group

import "github.com/pgoltp/pgoltp/internal/field"

// maxNameLen bounds a group name: it is typed on every machine and shown in
// the run list.
const maxNameLen = 64

// ValidateName checks a group's name (the field error names Options.Name): 1 to 64 letters, digits, '-', '_' or
// '.', starting with a letter or digit, so that it reads the same in a shell,
// a report file name and the run list.
func ValidateName(name string) error {
	if name == "" || len(name) > maxNameLen {
		return field.New("Name", name, "{} %q: give a name of 1 to %d characters", name, maxNameLen)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && (r == '-' || r == '_' || r == '.')
		if !ok {
			return field.New("Name", name, "{} %q: use only letters, digits, '-', '_' and '.', starting with a letter or digit", name)
		}
	}
	return nil
}
