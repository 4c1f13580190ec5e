package command

import (
	"bytes"
	"os"
	"testing"
)

// What a program wrote to stderr before its stdout comes out first, even
// when both are waiting by the time they are read: pgbench's last progress
// line, then its summary.
func TestForwardInOrderPutsStderrFirst(t *testing.T) {
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		f *os.File
		s string
	}{{errW, "progress: 600.0 s, 2982.5 tps\n"}, {outW, "tps = 3160.545639\n"}} {
		if _, err := w.f.WriteString(w.s); err != nil {
			t.Fatal(err)
		}
	}
	outW.Close()
	errW.Close()
	var both bytes.Buffer
	if err := forwardInOrder(outR, errR, &both, &both); err != nil {
		t.Fatal(err)
	}
	if want := "progress: 600.0 s, 2982.5 tps\ntps = 3160.545639\n"; both.String() != want {
		t.Errorf("forwarded %q, want %q", both.String(), want)
	}
}
