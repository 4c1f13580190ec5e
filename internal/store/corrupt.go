package store

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// corrupt is the error of a results store pgoltp cannot read as one: bad
// input (exit 2) naming the file and what to do. pgoltp never repairs,
// replaces or overwrites such a file: it may be someone's only copy of their
// runs.
func corrupt(path string, why error) error {
	return &problem.Problem{
		What: fmt.Sprintf("the results store %s is corrupt: %v", path, why),
		Fix:  fmt.Sprintf("pgoltp leaves it untouched; move it aside (mv %s %s.bad) to start a new one, or use another --lab", path, path),
		Code: problem.ExitBadInput, Err: why,
	}
}

// corruptFile reports whether SQLite found the file is not a database or a
// damaged one (SQLITE_NOTADB, SQLITE_CORRUPT, with their extended codes).
func corruptFile(err error) bool {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return false
	}
	switch coded.Code() & 0xff {
	case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
		return true
	}
	return false
}

// kindOf names a file mode for a message: "directory", "symlink"...
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "special file"
}
