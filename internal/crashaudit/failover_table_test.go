package crashaudit

import (
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// TestFailoverTable: one row per audit, named by the level as --sync names
// it; a loss fails the table (exit 1) only with synchronous replication.
func TestFailoverTable(t *testing.T) {
	table := &FailoverTable{Audits: []*FailoverReport{
		{Synchronous: true, SyncCommit: "remote_apply", Kill: KillNetwork, Acknowledged: 1558, InDoubt: 1, WithoutPrimary: 205 * time.Millisecond, RateBefore: 353, RateAfter: 1711, Rebuilt: true},
		{Synchronous: false, SyncCommit: "off", Kill: KillNetwork, Acknowledged: 3794, Lost: 228, WithoutPrimary: 268 * time.Millisecond, RateBefore: 868, RateAfter: 1011, Rebuilt: true},
	}}
	var b strings.Builder
	if err := table.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for i, want := range [][]string{
		{"level", "kill", "acknowledged", "lost", "in doubt", "without primary", "before", "after"},
		{"remote_apply", "network", "1558", " 0 ", " 1 ", "205ms", "353", "1711"},
		{"off", "network", "3794", "228", "268ms", "868", "1011"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
	if strings.Contains(b.String(), "could not be put back") {
		t.Errorf("a rebuilt lab reported as not put back:\n%s", b.String())
	}
	if err := table.Failure(); err != nil {
		t.Errorf("an asynchronous loss failed the table: %v", err)
	}
	table.Audits[0].Lost = 2
	if err := table.Failure(); problem.ExitCode(err) != problem.ExitFailed || !strings.Contains(err.Error(), "2 acknowledged commits lost") {
		t.Errorf("a synchronous loss: %v", err)
	}
}
