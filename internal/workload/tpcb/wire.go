package tpcb

import (
	"encoding/binary"
	"strconv"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// frontendMessages are the few frontend messages the event loop sends, kept
// per client and encoded by pgproto3 into a reused buffer, so that sending
// a statement allocates nothing. Parameters are sent in text format with
// unspecified types, as libpq (and so pgbench) does.
type frontendMessages struct {
	query    pgproto3.Query
	parse    pgproto3.Parse
	bind     pgproto3.Bind
	describe pgproto3.Describe
	execute  pgproto3.Execute
	sync     pgproto3.Sync
}

// appendQuery appends a simple-protocol Query of sql. sql is only read
// while encoding, so it is viewed as a string without a copy.
func (m *frontendMessages) appendQuery(b, sql []byte) ([]byte, error) {
	m.query.String = unsafe.String(unsafe.SliceData(sql), len(sql))
	b, err := m.query.Encode(b)
	m.query.String = ""
	return b, err
}

// appendExtended appends what libpq's PQsendQueryParams (parse != "", into
// the unnamed statement) or PQsendQueryPrepared (parse == "", statement
// stmt) send: [Parse,] Bind of the text params to the unnamed portal,
// Describe it, Execute, Sync.
func (m *frontendMessages) appendExtended(b []byte, parse, stmt string, params [][]byte) ([]byte, error) {
	var err error
	if parse != "" {
		m.parse.Name, m.parse.Query = "", parse
		if b, err = m.parse.Encode(b); err != nil {
			return b, err
		}
	}
	m.bind.PreparedStatement, m.bind.Parameters = stmt, params
	if b, err = m.bind.Encode(b); err != nil {
		return b, err
	}
	m.describe.ObjectType, m.describe.Name = 'P', ""
	if b, err = m.describe.Encode(b); err != nil {
		return b, err
	}
	if b, err = m.execute.Encode(b); err != nil {
		return b, err
	}
	return m.sync.Encode(b)
}

// nextMessage splits the first complete backend message off buf: its type,
// its body and the rest. ok is false when buf holds no complete message.
func nextMessage(buf []byte) (typ byte, body, rest []byte, ok bool) {
	if len(buf) < 5 {
		return 0, nil, buf, false
	}
	size := int(binary.BigEndian.Uint32(buf[1:5]))
	if size < 4 || len(buf) < 1+size {
		return 0, nil, buf, false
	}
	return buf[0], buf[5 : 1+size], buf[1+size:], true
}

// decodeError turns an ErrorResponse body into the error pgconn would
// return for it.
func decodeError(body []byte) *pgconn.PgError {
	var msg pgproto3.ErrorResponse
	if err := msg.Decode(body); err != nil {
		return &pgconn.PgError{Severity: "ERROR", Message: "malformed ErrorResponse from the server: " + err.Error()}
	}
	return pgconn.ErrorResponseToPgError(&msg)
}

// preparedName is the name of statement i of a client's script.
func preparedName(i int) string { return "pgoltp_tpcb_" + strconv.Itoa(i) }
