// Package e2e_test runs the pgoltp binary the way a person does and checks what
// it prints, what it exits with and what it leaves behind.
package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestMain removes the binary the tests built: every run of the suite would
// otherwise leave 40 MB in the temporary directory.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// pgoltpBinary builds cmd/pgoltp once per test run.
func pgoltpBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pgoltp-bin-")
		if err != nil {
			buildErr = err
			return
		}
		_ = os.Chmod(dir, 0o755)
		binPath = filepath.Join(dir, "pgoltp")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Dir(filepath.Dir(file))
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/pgoltp")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// result is one finished pgoltp invocation.
type result struct {
	stdout, stderr string
	code           int
}

// runPgoltp runs the binary with args and a time limit.
func runPgoltp(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	return runPgoltpEnv(t, nil, timeout, args...)
}

// runPgoltpEnv is runPgoltp with variables added to the environment of this
// command only (t.Setenv would forbid t.Parallel and reach every command of
// the tests running meanwhile).
func runPgoltpEnv(t *testing.T, env []string, timeout time.Duration, args ...string) result {
	t.Helper()
	// Not while another test changes the machine: every command would then
	// warn of the pending change on standard error.
	defer pgtest.CommandOutput(t)()
	// A run records into ./pgoltp-lab unless told otherwise: keep that out of the source tree.
	r, err := execPgoltpEnv(pgoltpBinary(t), t.TempDir(), env, timeout, args...)
	if err != nil {
		t.Fatalf("running pgoltp %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// execPgoltp runs bin in dir; err is set only when it could not run at all
// (an exit code other than 0 is a result, not an error).
func execPgoltp(bin, dir string, timeout time.Duration, args ...string) (result, error) {
	return execPgoltpEnv(bin, dir, nil, timeout, args...)
}

// execPgoltpEnv is execPgoltp with env added to the process's environment.
func execPgoltpEnv(bin, dir string, env []string, timeout time.Duration, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return result{out.String(), errb.String(), ee.ExitCode()}, nil
	} else if err != nil {
		return result{}, err
	}
	return result{out.String(), errb.String(), 0}, nil
}

// labDir returns a lab path the unprivileged server user can reach when the
// tests run as root.
func labDir(t *testing.T) string { return pgtest.LabDir(t) }

// assertOneLineProblem checks the contract for bad input: exit 2, exactly one
// line on stderr, naming the problem, no Go stack trace.
func assertOneLineProblem(t *testing.T, r result, mentions ...string) {
	t.Helper()
	if r.code != 2 {
		t.Errorf("exit code %d, want 2 (stderr %q)", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "pgoltp: ") {
		t.Errorf("stderr should be one 'pgoltp: ...' line, got %q", r.stderr)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Errorf("stderr holds a stack trace: %q", r.stderr)
	}
	for _, m := range mentions {
		if !strings.Contains(r.stderr, m) {
			t.Errorf("stderr %q should mention %q", r.stderr, m)
		}
	}
}
