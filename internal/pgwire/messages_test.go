package pgwire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Appending a statement's messages to a client's buffer and splitting the
// answer allocate nothing: the engines' hot path stays free of garbage.
func TestHotPathAllocatesNothing(t *testing.T) {
	out := make([]byte, 0, 512)
	sql := []byte("SELECT abalance FROM pgbench_accounts WHERE aid = 42")
	params := [][]byte{[]byte("42"), []byte("-17"), nil}
	var answer []byte
	for _, msg := range []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.RowDescription{},
		&pgproto3.DataRow{Values: [][]byte{[]byte("0")}}, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'}} {
		answer, _ = msg.Encode(answer)
	}
	allocs := testing.AllocsPerRun(100, func() {
		out = AppendQuery(out[:0], sql)
		out = AppendSync(AppendExtended(out[:0], "UPDATE x SET y = $1 WHERE z = $2", "", params))
		out = AppendSync(AppendExtended(out[:0], "", "pgoltp_tpcb_1", params))
		for buf := answer; ; {
			_, _, n, ok := NextMessage(buf)
			if !ok {
				break
			}
			buf = buf[n:]
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per statement", allocs)
	}
}

// The messages are the bytes pgproto3 reads back as what libpq sends for
// PQsendQueryParams and PQsendQueryPrepared, parameters (NULL included)
// intact.
func TestEncodesLibpqSequence(t *testing.T) {
	var out []byte
	out = AppendQuery(out, []byte("BEGIN"))
	out = AppendSync(AppendExtended(out, "SELECT $1, $2", "", [][]byte{[]byte("7"), nil}))
	out = AppendSync(AppendExtended(out, "", "pgoltp_tpcb_2", [][]byte{[]byte("8")}))
	out = AppendCopyFail(AppendTerminate(out), "no")
	be := pgproto3.NewBackend(bytes.NewReader(out), nil)
	var got []string
	for range 12 {
		msg, err := be.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch msg := msg.(type) {
		case *pgproto3.Query:
			got = append(got, "Query "+msg.String)
		case *pgproto3.Parse:
			got = append(got, "Parse "+msg.Name+":"+msg.Query)
		case *pgproto3.Bind:
			s := "Bind " + msg.PreparedStatement
			for _, p := range msg.Parameters {
				if p == nil {
					s += " NULL"
				} else {
					s += " " + string(p)
				}
			}
			got = append(got, s)
		case *pgproto3.Describe:
			got = append(got, "Describe"+string(msg.ObjectType))
		case *pgproto3.Execute:
			got = append(got, "Execute")
		case *pgproto3.Sync:
			got = append(got, "Sync")
		case *pgproto3.Terminate:
			got = append(got, "Terminate")
		case *pgproto3.CopyFail:
			got = append(got, "CopyFail "+msg.Message)
		}
	}
	want := []string{"Query BEGIN", "Parse :SELECT $1, $2", "Bind  7 NULL", "DescribeP", "Execute", "Sync",
		"Bind pgoltp_tpcb_2 8", "DescribeP", "Execute", "Sync", "Terminate", "CopyFail no"}
	if len(got) != len(want) {
		t.Fatalf("messages %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// The decoded ErrorResponse is pgconn's own error type, so that
// driver.Retryable and errors.As see what they would from pgconn.
func TestDecodeErrorIsPgError(t *testing.T) {
	body := []byte("SERROR\x00VERROR\x00C40001\x00Mcould not serialize access\x00\x00")
	var err error = DecodeError(body)
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "40001" || pg.Message != "could not serialize access" || pg.Severity != "ERROR" {
		t.Errorf("decoded %#v", pg)
	}
}

// Room grows a read buffer only when it lacks the room asked, keeping
// what it holds; a buffer with room is returned as is (no copy on a
// transaction's read).
func TestRoom(t *testing.T) {
	in := append(make([]byte, 0, 8), "abcdef"...)
	grown := Room(in, 4096)
	if string(grown) != "abcdef" || cap(grown)-len(grown) < 4096 {
		t.Fatalf("grown %q with %d free", grown, cap(grown)-len(grown))
	}
	if same := Room(grown, 4096); &same[0] != &grown[0] || string(same) != "abcdef" {
		t.Error("a buffer with room was copied")
	}
	if allocs := testing.AllocsPerRun(100, func() { grown = Room(grown, 4096) }); allocs != 0 {
		t.Errorf("%.1f allocations with room to spare", allocs)
	}
}
