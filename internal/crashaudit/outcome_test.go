package crashaudit

import (
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/problem"
)

func TestFailure(t *testing.T) {
	crash := &CrashReport{Missing: 3}
	if err := crash.Failure(); err == nil || !strings.Contains(err.Error(), "3 acknowledged commits lost") {
		t.Errorf("crash failure %v", err)
	}
	crash.Unsafe = []string{"synchronous_commit"}
	if err := crash.Failure(); err != nil {
		t.Errorf("loss with unsafe settings is expected: %v", err)
	}
}

// TestOutcomeFailsWhenNotRestored: an audit that ran to its end but could
// not restore the settings exits non-zero and names the fix.
func TestOutcomeFailsWhenNotRestored(t *testing.T) {
	crash := &CrashReport{}
	if err := crash.Outcome(nil, false); problem.ExitCode(err) != 1 || !strings.Contains(err.Error(), "pgoltp restore") {
		t.Errorf("audit not restored: %v", err)
	}
}
