package pgwire

import (
	"encoding/binary"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// The frontend messages of a benchmark's statements, appended by hand to a
// reused buffer as libpq writes them: Query, or Parse, Bind, Describe,
// Execute and Sync with text parameters of unspecified types (what
// PQsendQueryParams and PQsendQueryPrepared send).

func begin(b []byte, typ byte) ([]byte, int) {
	b = append(b, typ, 0, 0, 0, 0)
	return b, len(b) - 4
}

func end(b []byte, at int) []byte {
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at))
	return b
}

func cstring(b []byte, s string) []byte { return append(append(b, s...), 0) }

// AppendQuery appends a simple-protocol Query of sql.
func AppendQuery(b, sql []byte) []byte {
	b, at := begin(b, 'Q')
	b = append(append(b, sql...), 0)
	return end(b, at)
}

// AppendParse appends a Parse of sql into statement name, with no
// parameter types: the server infers them.
func AppendParse(b []byte, name, sql string) []byte {
	b, at := begin(b, 'P')
	b = cstring(cstring(b, name), sql)
	b = append(b, 0, 0)
	return end(b, at)
}

// AppendBind binds text params (nil: NULL) of statement stmt to the
// unnamed portal; results in text.
func AppendBind(b []byte, stmt string, params [][]byte) []byte {
	b, at := begin(b, 'B')
	b = cstring(append(b, 0), stmt)
	b = append(b, 0, 0, byte(len(params)>>8), byte(len(params)))
	for _, p := range params {
		if p == nil {
			b = append(b, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	b = append(b, 0, 0)
	return end(b, at)
}

// AppendDescribe appends a Describe of a portal ('P') or statement ('S').
func AppendDescribe(b []byte, kind byte, name string) []byte {
	b, at := begin(b, 'D')
	b = cstring(append(b, kind), name)
	return end(b, at)
}

// AppendExecute appends an Execute of the unnamed portal, all rows.
func AppendExecute(b []byte) []byte { return append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) }

// AppendSync appends a Sync.
func AppendSync(b []byte) []byte { return append(b, 'S', 0, 0, 0, 4) }

// AppendTerminate appends a Terminate.
func AppendTerminate(b []byte) []byte { return append(b, 'X', 0, 0, 0, 4) }

// AppendCopyFail appends a CopyFail saying why.
func AppendCopyFail(b []byte, why string) []byte {
	b, at := begin(b, 'f')
	return end(cstring(b, why), at)
}

// AppendExtended appends PQsendQueryParams's messages (stmt == "": sql
// parsed into the unnamed statement) or PQsendQueryPrepared's (statement
// stmt), without the Sync.
func AppendExtended(b []byte, sql, stmt string, params [][]byte) []byte {
	if stmt == "" {
		b = AppendParse(b, "", sql)
	}
	b = AppendBind(b, stmt, params)
	b = AppendDescribe(b, 'P', "")
	return AppendExecute(b)
}

// Room returns in with at least free bytes of spare capacity, grown (to
// twice its capacity and free more) when it has less.
func Room(in []byte, free int) []byte {
	if cap(in)-len(in) >= free {
		return in
	}
	grown := make([]byte, len(in), 2*cap(in)+free)
	return grown[:copy(grown, in)]
}

// NextMessage splits the first complete backend message off buf: its type,
// its body and its whole length. ok is false when buf holds no complete
// message.
func NextMessage(buf []byte) (typ byte, body []byte, size int, ok bool) {
	if len(buf) < 5 {
		return 0, nil, 0, false
	}
	n := int(binary.BigEndian.Uint32(buf[1:5]))
	if n < 4 || len(buf) < 1+n {
		return 0, nil, 0, false
	}
	return buf[0], buf[5 : 1+n], 1 + n, true
}

// DecodeError turns an ErrorResponse (or NoticeResponse) body into the
// error pgconn would return for it.
func DecodeError(body []byte) *pgconn.PgError {
	var msg pgproto3.ErrorResponse
	if err := msg.Decode(body); err != nil {
		return &pgconn.PgError{Severity: "ERROR", Message: "malformed ErrorResponse from the server: " + err.Error()}
	}
	return pgconn.ErrorResponseToPgError(&msg)
}
