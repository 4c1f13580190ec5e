package tpcc

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
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

// copySQL is the COPY statement of a table with its explicit column list.
func copySQL(t tableDef, binary bool) string {
	format := "text"
	if binary {
		format = "binary"
	}
	return fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT %s)", t.name, strings.Join(t.columnNames(), ", "), format)
}

// copyUnit streams one unit into its table over conn in binary.
func copyUnit(ctx context.Context, conn *pgx.Conn, src rowSource, rows *atomic.Int64) (int64, error) {
	t, _ := tableByName(src.table())
	tag, err := conn.PgConn().CopyFrom(ctx, newCopySource(src, true, rows), copySQL(t, true))
	if err != nil {
		return 0, fmt.Errorf("COPY %s: %w", t.name, err)
	}
	return tag.RowsAffected(), nil
}
