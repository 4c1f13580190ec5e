package tpcc

import (
	"io"
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
	counts   *loadCounts // progress shared by all workers; nil: none
}

func newCopySource(src rowSource, binary bool, counts *loadCounts) *copySource {
	s := &copySource{src: src, left: src.total(), counts: counts}
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
		if s.counts != nil {
			s.counts.rows.Add(int64(n))
			s.counts.bytes.Add(int64(len(s.c.b)))
		}
	}
	n := copy(p, s.c.b[s.off:])
	s.off += n
	return n, nil
}
