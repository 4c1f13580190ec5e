package tpcc

import (
	"encoding/binary"
	"strconv"
	"time"
)

// copyRows encodes rows for COPY FROM STDIN straight into one reusable byte
// slice, in PostgreSQL's binary format (what the loader streams) or its text
// format (for --to-files). Strings are generated in place, so a row costs no
// allocation.
type copyRows struct {
	b      []byte
	binary bool
	col    int // columns written in the current row (text separators)
}

// pgEpoch is the zero of PostgreSQL's binary timestamps.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// timestampField is a timestamp (without time zone) pre-encoded both ways:
// every date of the initial population is the load time.
type timestampField struct {
	micros int64
	text   string
}

func newTimestampField(t time.Time) timestampField {
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000*1000, time.UTC)
	return timestampField{micros: wall.Sub(pgEpoch).Microseconds(), text: wall.Format("2006-01-02 15:04:05.999999")}
}

// header starts a binary COPY stream: signature, flags, extension length.
func (c *copyRows) header() {
	if c.binary {
		c.b = append(c.b, "PGCOPY\n\xff\r\n\x00"...)
		c.b = append(c.b, 0, 0, 0, 0, 0, 0, 0, 0)
	}
}

// trailer ends a binary COPY stream.
func (c *copyRows) trailer() {
	if c.binary {
		c.b = append(c.b, 0xff, 0xff)
	}
}

// row starts a row of n columns.
func (c *copyRows) row(n int) {
	c.col = 0
	if c.binary {
		c.b = binary.BigEndian.AppendUint16(c.b, uint16(n))
	}
}

// end finishes a row.
func (c *copyRows) end() {
	if !c.binary {
		c.b = append(c.b, '\n')
	}
}

func (c *copyRows) sep() {
	if c.col > 0 {
		c.b = append(c.b, '\t')
	}
	c.col++
}

// int4 writes an integer column.
func (c *copyRows) int4(v int) {
	if c.binary {
		c.b = append(c.b, 0, 0, 0, 4)
		c.b = binary.BigEndian.AppendUint32(c.b, uint32(int32(v)))
		return
	}
	c.sep()
	c.b = strconv.AppendInt(c.b, int64(v), 10)
}

// null writes a NULL column.
func (c *copyRows) null() {
	if c.binary {
		c.b = append(c.b, 0xff, 0xff, 0xff, 0xff)
		return
	}
	c.sep()
	c.b = append(c.b, `\N`...)
}

// timestamp writes a timestamp column.
func (c *copyRows) timestamp(ts timestampField) {
	if c.binary {
		c.b = append(c.b, 0, 0, 0, 8)
		c.b = binary.BigEndian.AppendUint64(c.b, uint64(ts.micros))
		return
	}
	c.sep()
	c.b = append(c.b, ts.text...)
}

// beginText starts a text column whose bytes the caller appends to c.b; it
// returns the mark to pass to endText. Generated text is alphanumeric, so the
// text format needs no escaping.
func (c *copyRows) beginText() int {
	if c.binary {
		c.b = append(c.b, 0, 0, 0, 0)
	} else {
		c.sep()
	}
	return len(c.b)
}

// endText patches the length of a binary text column.
func (c *copyRows) endText(mark int) {
	if c.binary {
		binary.BigEndian.PutUint32(c.b[mark-4:], uint32(len(c.b)-mark))
	}
}

// text writes a constant text column.
func (c *copyRows) text(s string) {
	m := c.beginText()
	c.b = append(c.b, s...)
	c.endText(m)
}

// numeric writes the exact decimal v / 10^scale (e.g. 1234, 2 → 12.34).
func (c *copyRows) numeric(v int64, scale int) {
	if !c.binary {
		c.sep()
		c.b = formatFixed(c.b, v, scale)
		return
	}
	c.b = appendNumericBinary(c.b, v, scale)
}

// appendNumericBinary appends a length-prefixed numeric in the server's binary
// form (numeric_recv): ndigits, weight, sign, dscale, then base-10000 digits,
// the first one weighted 10000^weight.
func appendNumericBinary(b []byte, v int64, scale int) []byte {
	var sign uint16
	if v < 0 {
		sign = 0x4000
		v = -v
	}
	// Align the value on a 4-digit group boundary: scale up to fracGroups*4 decimals.
	fracGroups := (scale + 3) / 4
	u := uint64(v)
	for range fracGroups*4 - scale {
		u *= 10
	}
	var groups [8]uint16 // least significant first
	n := 0
	for u > 0 {
		groups[n] = uint16(u % 10000)
		u /= 10000
		n++
	}
	weight := n - fracGroups - 1
	// Drop trailing (least significant) zero groups; leading ones cannot exist.
	low := 0
	for low < n && groups[low] == 0 {
		low++
	}
	ndigits := n - low
	if ndigits == 0 {
		weight = 0
		sign = 0
	}
	b = binary.BigEndian.AppendUint32(b, uint32(8+2*ndigits))
	b = binary.BigEndian.AppendUint16(b, uint16(ndigits))
	b = binary.BigEndian.AppendUint16(b, uint16(int16(weight)))
	b = binary.BigEndian.AppendUint16(b, sign)
	b = binary.BigEndian.AppendUint16(b, uint16(scale))
	for i := n - 1; i >= low; i-- {
		b = binary.BigEndian.AppendUint16(b, groups[i])
	}
	return b
}
