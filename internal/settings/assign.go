package settings

import (
	"fmt"
	"strings"
)

// Assignment is one name=value given on the command line (--set).
type Assignment struct {
	Name, Value string // trimmed
	Given       string // as given
}

// ParseAssignments reads name=value pairs in order. The error of a pair
// without "=" or without a name is that pair, quoted, so each command can
// word its own message around it.
func ParseAssignments(list []string) ([]Assignment, error) {
	out := make([]Assignment, 0, len(list))
	for _, kv := range list {
		name, value, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q", kv)
		}
		out = append(out, Assignment{Name: name, Value: strings.TrimSpace(value), Given: kv})
	}
	return out, nil
}
