package tpcc

import (
	"io"
	"sync/atomic"
)

// copySource is the io.Reader that pgconn.CopyFrom pulls the COPY data from:
// each Read generates just enough rows to fill the request, so a unit streams
// with one reusable buffer and no per-row allocation.
type copySource struct {
	src      rowSource
	c        copyRows
	left     int // rows still to generate
	off      int // bytes of c.b already handed out
	finished bool
	rows     *atomic.Int64 // progress counter shared by all workers
}

func newCopySource(src rowSource, binary bool, rows *atomic.Int64) *copySource {
	s := &copySource{src: src, left: src.total(), rows: rows}
	s.c = copyRows{b: make([]byte, 0, 80<<10), binary: binary}
	s.c.header()
	return s
}

func (s *copySource) Read(p []byte) (int, error) {
	if s.off == len(s.c.b) {
		if s.finished {
			return 0, io.EOF
		}
		s.c.b, s.off = s.c.b[:0], 0
		n := 0
		for s.left > 0 && len(s.c.b) < len(p) {
			s.src.writeRow(&s.c)
			s.left--
			n++
		}
		if s.left == 0 {
			s.c.trailer()
			s.finished = true
		}
		if s.rows != nil {
			s.rows.Add(int64(n))
		}
	}
	n := copy(p, s.c.b[s.off:])
	s.off += n
	return n, nil
}
