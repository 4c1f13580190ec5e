package e2e_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

func TestTpccRunBadInput(t *testing.T) {
	t.Parallel()
	dsn := "postgres://nobody@127.0.0.1:1/none" // never reached: input is checked first
	cases := []struct {
		name     string
		args     []string
		mentions []string
	}{
		{"negative terminals", []string{"--terminals", "-1"}, []string{"--terminals"}},
		{"short weights", []string{"--weights", "1,2"}, []string{"--weights"}},
		{"zero weights", []string{"--weights", "0,0,0,0,0"}, []string{"--weights"}},
		{"bad path", []string{"--path", "both"}, []string{"--path"}},
		{"bad mode", []string{"--mode", "fast"}, []string{"--mode"}},
		{"negative rate", []string{"--rate", "-1"}, []string{"--rate"}},
		{"bad duration", []string{"--duration", "soon"}, []string{"soon"}},
		{"spec mode below the minimum mix", []string{"--mode", "spec", "--weights", "50,40,4,3,3"}, []string{"5.2.3", "--allow-noncompliant"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--dsn", dsn, "tpcc", "run"}, tc.args...)
			assertOneLineProblem(t, runPgoltp(t, time.Minute, args...), tc.mentions...)
		})
	}
}

func TestTpccRunNotLoaded(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	r := runPgoltp(t, time.Minute, "--dsn", dsn, "tpcc", "run", "--duration", "1s")
	assertOneLineProblem(t, r, "tpcc load")
}

// TestTpccRunEndToEnd loads one warehouse, runs both paths with --json, checks
// the figures, then runs 'tpcc check'.
func TestTpccRunEndToEnd(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	if r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcc", "load", "--warehouses", "1"); r.code != 0 {
		t.Fatalf("load: exit %d: %s", r.code, r.stderr)
	}
	for _, path := range []string{"client", "server"} {
		t.Run(path, func(t *testing.T) {
			r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "--json", "tpcc", "run", "--path", path,
				"--terminals", "2", "--conns", "2", "--txns-per-terminal", "100", "--progress", "0", "--seed", "5")
			if r.code != 0 {
				t.Fatalf("run: exit %d: %s", r.code, r.stderr)
			}
			var res struct {
				TpmC   float64     `json:"tpmc"`
				Errors int64       `json:"errors"`
				Params [][2]string `json:"params"`
				Txns   []struct {
					Name  string `json:"name"`
					Count int64  `json:"count"`
				} `json:"txns"`
				Audits []struct {
					Clause, Status string
				} `json:"audits"`
				Histograms map[string]json.RawMessage `json:"histograms"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatalf("--json output: %v\n%s", err, r.stdout)
			}
			var total int64
			for _, x := range res.Txns[:5] {
				total += x.Count
			}
			if total != 200 || res.TpmC <= 0 || res.Errors != 0 {
				t.Errorf("%d transactions (want 200), tpmC %.0f, errors %d", total, res.TpmC, res.Errors)
			}
			if len(res.Audits) == 0 || len(res.Histograms) == 0 {
				t.Errorf("missing audits or histograms in --json")
			}
			found := false
			for _, p := range res.Params {
				found = found || (p[0] == "path" && p[1] == path)
			}
			if !found {
				t.Errorf("params %v do not state the path", res.Params)
			}
		})
	}
	if r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcc", "check"); r.code != 0 {
		t.Fatalf("check after the runs: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// TestTpccRunInterrupt sends SIGINT mid-run: the run stops cleanly, exits 0 and
// still prints the summary, marked interrupted.
func TestTpccRunInterrupt(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	if r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcc", "load", "--warehouses", "1"); r.code != 0 {
		t.Fatalf("load: exit %d: %s", r.code, r.stderr)
	}
	cmd := exec.Command(pgoltpBinary(t), "--dsn", dsn, "--lab", labDir(t), "tpcc", "run", "--conns", "2", "--duration", "5m", "--progress", "1")
	var out bytes.Buffer
	var errb lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupted once its first progress line shows it measuring: after a
	// fixed 3 s a run on a busy machine was still starting.
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(errb.String(), "tpmTOTAL"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no progress line on stderr within 2 minutes: %q", errb.String())
		}
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v; stderr %s", err, errb.String())
		}
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("did not stop within a minute of SIGINT")
	}
	if !strings.Contains(out.String(), "INTERRUPTED") || !strings.Contains(out.String(), "tpmC") {
		t.Errorf("summary after SIGINT:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), "tpmTOTAL") {
		t.Errorf("no progress line on stderr: %q", errb.String())
	}
	if r := runPgoltp(t, 5*time.Minute, "--dsn", dsn, "tpcc", "check"); r.code != 0 {
		t.Fatalf("check after the interrupted run: exit %d: %s", r.code, r.stdout)
	}
}

// lockedBuffer is a buffer a running command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
