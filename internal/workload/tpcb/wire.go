package tpcb

import (
	"encoding/binary"
	"strconv"
)

// The few frontend messages the event loop sends, encoded by hand into a
// reused buffer (PostgreSQL docs, "Message Formats"). Parameters are sent in
// text format with unspecified types, as libpq (and so pgbench) does.

func beginMsg(b []byte, typ byte) ([]byte, int) {
	b = append(b, typ, 0, 0, 0, 0)
	return b, len(b) - 4
}

func endMsg(b []byte, at int) []byte {
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at))
	return b
}

// appendQuery is a simple-protocol Query.
func appendQuery(b []byte, sql []byte) []byte {
	b, at := beginMsg(b, 'Q')
	b = append(b, sql...)
	b = append(b, 0)
	return endMsg(b, at)
}

// appendParse parses sql into the unnamed statement.
func appendParse(b []byte, sql string) []byte {
	b, at := beginMsg(b, 'P')
	b = append(b, 0) // unnamed statement
	b = append(b, sql...)
	b = append(b, 0, 0, 0) // no parameter types
	return endMsg(b, at)
}

// appendBind binds text parameters to stmt (name, "" = unnamed) in the unnamed portal.
func appendBind(b []byte, stmt string, params [][]byte) []byte {
	b, at := beginMsg(b, 'B')
	b = append(b, 0) // unnamed portal
	b = append(b, stmt...)
	b = append(b, 0, 0, 0) // all parameters text
	b = binary.BigEndian.AppendUint16(b, uint16(len(params)))
	for _, p := range params {
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	b = append(b, 0, 0) // all results text
	return endMsg(b, at)
}

// appendDescribeExecuteSync describes and runs the unnamed portal, then syncs:
// what libpq's PQsendQueryPrepared/PQsendQueryParams send after Bind.
func appendDescribeExecuteSync(b []byte) []byte {
	b, at := beginMsg(b, 'D')
	b = append(b, 'P', 0)
	b = endMsg(b, at)
	b, at = beginMsg(b, 'E')
	b = append(b, 0, 0, 0, 0, 0) // unnamed portal, no row limit
	b = endMsg(b, at)
	return append(b, 'S', 0, 0, 0, 4)
}

// errorFields extracts SQLSTATE and message from an ErrorResponse body.
func errorFields(body []byte) (code, msg string) {
	for len(body) > 0 && body[0] != 0 {
		typ := body[0]
		body = body[1:]
		end := 0
		for end < len(body) && body[end] != 0 {
			end++
		}
		switch typ {
		case 'C':
			code = string(body[:end])
		case 'M':
			msg = string(body[:end])
		}
		if end < len(body) {
			end++
		}
		body = body[end:]
	}
	return code, msg
}

// preparedName is the name of statement i of a client's script.
func preparedName(i int) string { return "pgoltp_tpcb_" + strconv.Itoa(i) }
