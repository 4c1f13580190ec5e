package study

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pgoltp/pgoltp/internal/settings"
)

// Translation is one setting as given and as applied on one major.
type Translation struct {
	Major int    `json:"major"`
	Given string `json:"given"`          // name=value as the user wrote it
	Name  string `json:"name"`           // what is applied on Major ("" when left out)
	Value string `json:"value"`          // its value there
	Note  string `json:"note,omitempty"` // why it differs, or why it is left out
}

// walSegmentMB is the default WAL segment size, the unit of wal_keep_segments.
const walSegmentMB = 16

// Translate returns the setting name=value in the form major knows: a name
// renamed between majors is translated (wal_keep_size, 13+, is
// wal_keep_segments before), a whole-millisecond setting takes a rounded value,
// a setting the major does not have is left out with a note, and one outside
// pgoltp's catalog is passed on for the server to check. The error is for a
// setting pgoltp never sets (settings.Refused), a value the major would
// refuse, or an unsafe one (it could lose or corrupt data).
func Translate(major int, name, value string) (Translation, error) {
	t := Translation{Major: major, Given: name + "=" + value, Name: name, Value: value}
	switch {
	case name == "wal_keep_size" && major <= 12:
		mb, err := settings.ToUnit(value, "MB")
		if err != nil {
			return t, fmt.Errorf("wal_keep_size=%s: %w", value, err)
		}
		seg := int64(math.Ceil(mb / walSegmentMB))
		t.Name, t.Value = "wal_keep_segments", strconv.FormatInt(seg, 10)
		t.Note = fmt.Sprintf("renamed: PostgreSQL %d keeps WAL in %dMB segments", major, walSegmentMB)
	case name == "wal_keep_segments" && major >= 13:
		n, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return t, fmt.Errorf("wal_keep_segments=%s: give a number of segments", value)
		}
		t.Name, t.Value = "wal_keep_size", strconv.FormatInt(int64(n)*walSegmentMB, 10)+"MB"
		t.Note = fmt.Sprintf("renamed: PostgreSQL %d sizes kept WAL in MB", major)
	}
	// First, before the catalog: a setting outside it is otherwise passed on
	// unchecked, and the refused ones are mostly outside it.
	if err := settings.CheckApplicable(map[string]string{t.Name: t.Value}); err != nil {
		return t, err
	}
	cat, ok := settings.Lookup(t.Name, major)
	if !ok {
		if _, anywhere := settings.Lookup(t.Name, 0); !anywhere {
			// Not in pgoltp's catalog: the server checks it when it is applied.
			t.Note = "not in pgoltp's catalog: applied as given, checked by the server"
			return t, nil
		}
		t.Name, t.Value, t.Note = "", "", fmt.Sprintf("left out: PostgreSQL %d does not have %s", major, name)
		return t, nil
	}
	if cat.Kind == settings.Integer && cat.Unit == "ms" {
		if f, err := strconv.ParseFloat(t.Value, 64); err == nil && f != math.Trunc(f) {
			t.Value = strconv.FormatFloat(math.Round(f), 'f', 0, 64)
			t.Note = fmt.Sprintf("rounded: PostgreSQL %d takes whole milliseconds", major)
		}
	}
	if err := settings.Validate(major, t.Name, t.Value); err != nil {
		return t, err
	}
	if risk, why := settings.LabelFor(major, t.Name, t.Value); risk.Unsafe() {
		return t, fmt.Errorf("%s=%s is unsafe (%s): %s; compare-versions does not apply unsafe settings", t.Name, t.Value, risk, why)
	}
	return t, nil
}
