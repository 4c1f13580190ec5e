package tpcb

import (
	"bytes"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Encoding a statement's messages into the client's buffer and splitting
// the answer allocate nothing: the event loop's hot path stays free of
// garbage (memory_test.go measures the whole run, noisily on a busy machine).
func TestWireHotPathAllocatesNothing(t *testing.T) {
	var m frontendMessages
	out := make([]byte, 0, 512)
	sql := []byte("SELECT abalance FROM pgbench_accounts WHERE aid = 42")
	params := [][]byte{[]byte("42"), []byte("-17")}
	var answer []byte
	for _, msg := range []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.RowDescription{},
		&pgproto3.DataRow{Values: [][]byte{[]byte("0")}}, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'}} {
		answer, _ = msg.Encode(answer)
	}
	allocs := testing.AllocsPerRun(100, func() {
		out, _ = m.appendQuery(out[:0], sql)
		out, _ = m.appendExtended(out[:0], "UPDATE x SET y = $1 WHERE z = $2", "", params)
		out, _ = m.appendExtended(out[:0], "", "pgoltp_tpcb_1", params)
		for buf := answer; ; {
			_, _, rest, ok := nextMessage(buf)
			if !ok {
				break
			}
			buf = rest
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per statement", allocs)
	}
}

// The messages are what libpq sends for PQsendQueryPrepared: the backend
// side of pgproto3 reads them back as Bind/Describe/Execute/Sync.
func TestWireEncodesLibpqSequence(t *testing.T) {
	var m frontendMessages
	out, err := m.appendExtended(nil, "", "pgoltp_tpcb_2", [][]byte{[]byte("7")})
	if err != nil {
		t.Fatal(err)
	}
	be := pgproto3.NewBackend(bytes.NewReader(out), nil)
	var types []string
	for range 4 {
		msg, err := be.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch msg := msg.(type) {
		case *pgproto3.Bind:
			if msg.PreparedStatement != "pgoltp_tpcb_2" || len(msg.Parameters) != 1 || string(msg.Parameters[0]) != "7" {
				t.Errorf("bind %+v", msg)
			}
			types = append(types, "Bind")
		case *pgproto3.Describe:
			types = append(types, "Describe"+string(msg.ObjectType))
		case *pgproto3.Execute:
			types = append(types, "Execute")
		case *pgproto3.Sync:
			types = append(types, "Sync")
		}
	}
	if got := types; len(got) != 4 || got[0] != "Bind" || got[1] != "DescribeP" || got[2] != "Execute" || got[3] != "Sync" {
		t.Errorf("messages %v", got)
	}
}
