package lang

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestScriptChoiceMatchesPgbench: with three weighted scripts, the order in
// which pgbench runs them (seen through debug()'s script number) is the one
// ChooseScript draws from the thread's choose generator, which comes after
// the clients' generators and default_seed.
func TestScriptChoiceMatchesPgbench(t *testing.T) {
	bin := realPgbench(t)
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	weights := []int64{3, 5, 1}
	args := []string{"-n", "-t", "60", "-c", "1", "-j", "1", "--random-seed=99"}
	for i, w := range weights {
		p := filepath.Join(dir, fmt.Sprintf("s%d.sql", i))
		if err := os.WriteFile(p, []byte(`\set x debug(random(1, 100))`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-f", fmt.Sprintf("%s@%d", p, w))
	}
	out, code := runPgbenchArgs(t, bin, append(args, dsn)...)
	got := debugLines(out)
	if code != 0 || len(got) != 60 {
		t.Fatalf("pgbench exited %d with %d lines:\n%s", code, len(got), out)
	}
	st := NewSeeds(99).NewStreams(1, 1, false)
	var want []string
	for range got {
		s := ChooseScript(st.Threads[0].Choose, weights, 9)
		want = append(want, DebugLine(s, 1, IntValue(Rand(st.Clients[0], 1, 100))))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pgbench ran:\n%s\nChooseScript:\n%s", strings.Join(got[:10], "\n"), strings.Join(want[:10], "\n"))
	}
}
