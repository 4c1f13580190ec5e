package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// NewID returns a run id that sorts by start time and is short enough to type:
// 20261123-114502-3f9a.
func NewID(at time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return at.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// maxIDLength bounds an id: NewID's are 20 characters, a search's
// ("tune-20261123T114502Z") 21.
const maxIDLength = 64

var errBadID = errors.New("an id is 1 to 64 letters, digits, '-' or '_'")

// ValidID reports whether id is made of the alphabet of the ids pgoltp
// makes (NewID, tune searches: letters, digits, '-', '_'). An id names
// files (LAB/reports/ID.html), so no id with a '/', a '.' or anything else
// is ever stored, and one read from the store is checked again (checkID).
func ValidID(id string) bool {
	if id == "" || len(id) > maxIDLength {
		return false
	}
	for _, c := range id {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

// checkID is the error of an id read from the store that pgoltp would never
// have written: the store was damaged or tampered with, and the id must not
// become a path.
func (s *Store) checkID(id string) error {
	if ValidID(id) {
		return nil
	}
	why := fmt.Errorf("it holds the id %q, which pgoltp never writes (%w)", id, errBadID)
	if s.postgres {
		return &problem.Problem{What: fmt.Sprintf("%s is corrupt: %v", s.where, why),
			Fix: "delete that row, or use another --results-dsn", Code: problem.ExitBadInput, Err: why}
	}
	return corrupt(s.where, why)
}
