package tpcb

import (
	"encoding/binary"
	"io"
)

// copyHeader starts every COPY ... (FORMAT binary) stream: signature, flags
// and header-extension length (PostgreSQL docs, "Binary Format").
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// rowFunc appends the binary COPY tuple for row i (0-based) to b.
type rowFunc func(b []byte, i int64) []byte

// copyRows is an io.Reader producing a binary COPY stream for rows [next,
// end): each Read fills the caller's buffer with whole tuples, so the stream
// is generated without any per-row allocation.
type copyRows struct {
	next, end int64
	row       rowFunc
	header    bool // header written
	trailer   bool // trailer written
	maxRow    int  // upper bound of one tuple's size
}

func newCopyRows(lo, hi int64, maxRow int, row rowFunc) *copyRows {
	return &copyRows{next: lo, end: hi, row: row, maxRow: maxRow}
}

func (c *copyRows) Read(p []byte) (int, error) {
	b := p[:0]
	if !c.header {
		b = append(b, copyHeader...)
		c.header = true
	}
	for c.next < c.end && cap(b)-len(b) >= c.maxRow {
		b = c.row(b, c.next)
		c.next++
	}
	if c.next >= c.end && !c.trailer && cap(b)-len(b) >= 2 {
		b = binary.BigEndian.AppendUint16(b, 0xffff) // file trailer: -1 field count
		c.trailer = true
	}
	if len(b) == 0 && c.trailer {
		return 0, io.EOF
	}
	return len(b), nil
}

func appendInt4(b []byte, v int32) []byte {
	b = binary.BigEndian.AppendUint32(b, 4)
	return binary.BigEndian.AppendUint32(b, uint32(v))
}

func appendInt8(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

func appendNull(b []byte) []byte { return binary.BigEndian.AppendUint32(b, 0xffffffff) }

// emptyText is a zero-length value: for char(n) the server pads it to n
// blanks, which is what pgbench loads into pgbench_accounts.filler.
func emptyText(b []byte) []byte { return binary.BigEndian.AppendUint32(b, 0) }

// branchRow is pgbench's initBranch: bid, bbalance 0, filler NULL.
func branchRow(b []byte, i int64) []byte {
	b = binary.BigEndian.AppendUint16(b, 3)
	b = appendInt4(b, int32(i+1))
	b = appendInt4(b, 0)
	return appendNull(b)
}

// tellerRow is pgbench's initTeller: tid, bid, tbalance 0, filler NULL.
func tellerRow(b []byte, i int64) []byte {
	b = binary.BigEndian.AppendUint16(b, 4)
	b = appendInt4(b, int32(i+1))
	b = appendInt4(b, int32(i/TellersPerScale+1))
	b = appendInt4(b, 0)
	return appendNull(b)
}

// accountRow is pgbench's initAccount: aid, bid, abalance 0, filler ”.
func accountRow(b []byte, i int64) []byte {
	b = binary.BigEndian.AppendUint16(b, 4)
	b = appendInt4(b, int32(i+1))
	b = appendInt4(b, int32(i/AccountsPerScale+1))
	b = appendInt4(b, 0)
	return emptyText(b)
}

// bigAccountRow is accountRow with a bigint aid, from bigintScale on.
func bigAccountRow(b []byte, i int64) []byte {
	b = binary.BigEndian.AppendUint16(b, 4)
	b = appendInt8(b, i+1)
	b = appendInt4(b, int32(i/AccountsPerScale+1))
	b = appendInt4(b, 0)
	return emptyText(b)
}

// maxTuple bounds any tuple above: 2 + 4 fields of at most 4+8 bytes.
const maxTuple = 2 + 4*12
