package problem

import (
	"errors"
	"fmt"
	"testing"
)

func TestExitCodes(t *testing.T) {
	cause := errors.New("dial tcp: refused")
	cases := []struct {
		name string
		err  error
		code int
		text string
	}{
		{"nil", nil, 0, ""},
		{"plain error", errors.New("boom"), ExitFailed, "boom"},
		{"bad input", BadInput("pass --pg 17", "PostgreSQL %d is not supported", 9), ExitBadInput, "PostgreSQL 9 is not supported; pass --pg 17"},
		{"wrapped bad input", fmt.Errorf("loading: %w", BadInput("fix it", "bad")), ExitBadInput, "loading: bad; fix it"},
		{"wrap keeps the cause", Wrap(cause, "start the server", "cannot connect"), ExitBadInput, "cannot connect: dial tcp: refused; start the server"},
		{"failed check", Failed("%d checks failed", 2), ExitFailed, "2 checks failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExitCode(tc.err); got != tc.code {
				t.Errorf("ExitCode = %d, want %d", got, tc.code)
			}
			if tc.err != nil && tc.err.Error() != tc.text {
				t.Errorf("Error() = %q, want %q", tc.err.Error(), tc.text)
			}
		})
	}
	if !errors.Is(Wrap(cause, "", "x"), cause) {
		t.Error("Wrap lost its cause for errors.Is")
	}
}
