package lang

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// TestDistributionsMatchPgbenchAtLength: thousands of draws of every
// distribution (libm's exp, log, sin and pow against Go's) agree with the
// real pgbench, one client over many transactions.
func TestDistributionsMatchPgbenchAtLength(t *testing.T) {
	if testing.Short() {
		t.Skip("long comparison")
	}
	bin := realPgbench(t)
	dsn := pgtest.NewDatabase(t)
	exprs := []string{
		"random_zipfian(1, 100000, 1.01)", "random_zipfian(1, 1000, 3.7)",
		"random_gaussian(-1000000, 1000000, 2.0)", "random_gaussian(1, 100, 17.5)",
		"random_exponential(1, 1000000, 0.5)", "random_exponential(1, 10, 30)",
		"permute(random(0, 1000000), 1000001, random(0, 1 << 40))", "hash_fnv1a(random(-1000000, 1000000))",
		"random(-4611686018427387903, 4611686018427387903)",
	}
	lines := setLines(exprs)
	scale, _ := strconv.Atoi(os.Getenv("PGBENCH_GEN_SCALE")) // more draws when set
	txs := 700 * max(scale, 1)
	stderr, code := runPgbench(t, bin, strings.Join(lines, "\n")+"\n", "-n", "-t", strconv.Itoa(txs), "--random-seed=12345", dsn)
	got := debugLines(stderr)
	if code != 0 || len(got) != txs*len(exprs) {
		t.Fatalf("pgbench exited %d with %d debug lines: %s", code, len(got), stderr[max(0, len(stderr)-600):])
	}
	c := newClients(12345, 1, nil)[0]
	for i := 0; i < txs; i++ {
		c.evalSets(t, lines)
	}
	bad := 0
	for i := range got {
		if got[i] != c.debug[i] {
			if bad++; bad <= 5 {
				t.Errorf("draw %d of %s: got %s, pgbench %s", i/len(exprs), exprs[i%len(exprs)], c.debug[i], got[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d draws differ", bad, len(got))
	}
}
