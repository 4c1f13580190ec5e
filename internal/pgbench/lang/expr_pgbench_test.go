package lang

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// valueExprs are evaluated by the real pgbench and by this package; each
// must print the same debug() line. Later lines may use earlier results.
var valueExprs = []string{
	"1 + 2", "7 / 2", "-7 / 2", "7 % 3", "-7 % 3", "7.0 / 2", "1 + 2.5", "2 * 3.5",
	"9223372036854775807", "-9223372036854775808", "-9223372036854775807 - 1", "5 % -1",
	"1 << 3", "-16 >> 2", "1 << 65", "5 & 3", "5 | 3", "5 # 3", "~5", "1 = 1", "1 <> 2",
	"1 != 1", "2 > 1", "2 >= 2", "1 < 2.5", "1.5 <= 1", "true and false", "true or null",
	"null and false", "false and null", "not true", "null is null", "1 is null", "1 isnull",
	"1 notnull", "true is not false", "null is not true",
	"case when 1 > 2 then 1 when 2 > 1 then 2 else 3 end", "case when false then 1 end",
	"case when null then 1 when 0 then 2 when 0.5 then 3 end",
	"abs(-5)", "abs(-5.5)", "least(3, 1, 2)", "greatest(1, 2.5, 2)", "least(1, 2.0)",
	"double(5)", "int(5.5)", "int(6.5)", "int(-2.5)", "sqrt(2)", "ln(10)", "exp(1)", "pi()",
	"pow(2, 10)", "power(2.0, 0.5)", "mod(7, 3)", "mod(-7, 3)", "hash(5)", "hash(5, 7)",
	"hash_fnv1a(5)", "hash_fnv1a(-3, 11)", "hash_murmur2(123456789, 0)", "permute(0, 10)",
	"permute(5, 100, 17)", "permute(-3, 1000000, 5)", "permute(12345, 1000000007, 99)",
	"random(1, 10)", "random(-1000000000000, 1000000000000)", "random(5, 5)",
	"random_exponential(1, 1000, 2.5)", "random_gaussian(1, 1000, 2.5)",
	"random_zipfian(1, 1000, 1.07)", "random_zipfian(1, 1000000, 2.5)",
	"random_zipfian(-5, 5, 1.5)", "random_exponential(0, 9, 0.001)",
	"1.0e10", ".5", "1e-3 * 3", "123456789.123456789", "1 / 3.0", "2 * 3 + 4 * 5 - 6 / 2 % 4",
	"-2 * -3", "not 1 < 2 and 2 < 3", "5 - 3 - 1", "2 | 1 & 3", "1 + 2 << 1", "~1 + 1",
	":v0 + :v1", ":v5 * 2", ":default_seed", ":random_seed", ":client_id", ":scale",
	":dyes and true", ":dnum * 2", ":dnull is null", ":dint + 1", ":doff or false", ":dy",
	"hash(:default_seed)", "permute(:v0, 7)", "1 = 1 is true", "- - 3", "+ 4", "-(2.5)",
	"9223372036854775807.0", "1e308 * 10", "-1e308 * 10", "0.0 / 0 = 0.0 / 0", "sqrt(-1) <> 1",
	"5 / 2.0 * 2", "greatest(-0.0, 0.0)", "least(1.0, 0.0 / 0)", "null + 1 and 1", ":dhex + 1", ":dinf * 0", "exp(1.5)", "ln(4.48168907033806)", "pow(1.5, 3.7)",
}

var defines = map[string]string{"dhex": "0x1F", "dinf": "-Infinity", "dyes": "yes", "dnum": "3.25", "dnull": "NULL", "dint": " 42", "doff": "off", "dy": "T"}

// TestExpressionsMatchPgbench: every expression of valueExprs, for several
// --random-seed values, yields exactly what the real pgbench prints.
func TestExpressionsMatchPgbench(t *testing.T) {
	bin := realPgbench(t)
	dsn := pgtest.NewDatabase(t)
	exprs := valueExprs
	lines := setLines(exprs)
	script := strings.Join(lines, "\n") + "\n"
	args := []string{"-n", "-t", "1", dsn}
	for k, v := range defines {
		args = append(args, "-D", k+"="+v)
	}
	for _, seed := range []uint64{0, 1, 42, 1 << 40, 18446744073709551615} {
		stderr, code := runPgbench(t, bin, script, append(args, fmt.Sprintf("--random-seed=%d", seed))...)
		want := debugLines(stderr)
		if code != 0 || len(want) != len(exprs) {
			t.Fatalf("pgbench exited %d with %d debug lines for %d expressions:\n%s", code, len(want), len(exprs), stderr)
		}
		c := newClients(seed, 1, defines)[0]
		c.evalSets(t, lines)
		for i := range want {
			if c.debug[i] != want[i] {
				t.Errorf("seed %d: %s:\n got %s\nwant %s", seed, exprs[i], c.debug[i], want[i])
			}
		}
	}
}

// evalErrorExprs fail at run time in pgbench; the message must be the same.
var evalErrorExprs = []string{
	"9223372036854775807 + 1", "-9223372036854775807 - 2", "4611686018427387904 * 2",
	"-9223372036854775808 * -1", "-9223372036854775808 / -1", "1 / 0", "1 % 0", "- (-9223372036854775808)",
	"true = true", "true + 1", "1 and true", "not 1", "int(1e30)", "int(0.0 / 0)",
	"random(10, 1)", "random(-9223372036854775808, 9223372036854775807)", "random(0, 9223372036854775807)",
	"random_gaussian(1, 10, 1.5)", "random_zipfian(1, 10, 1.0)", "random_zipfian(1, 10, 1001)",
	"random_exponential(1, 10, 0)", "permute(1, 0)", "permute(1, -5, 3)", ":nosuch + 1",
	"least(1, 2, true)", "greatest(1.5, false)", "sqrt(true)", "hash(1.5e300)",
	"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", "case when 1 then 1 + true end",
	"pow(true, 1)", "double(false)", ":dbad + 1", "exp(null) is null and 1",
}

// TestEvalErrorsMatchPgbench: each failing expression fails in pgbench with
// the message this package returns.
func TestEvalErrorsMatchPgbench(t *testing.T) {
	bin := realPgbench(t)
	dsn := pgtest.NewDatabase(t)
	defs := map[string]string{"dbad": "1.5x"}
	for _, src := range evalErrorExprs {
		stderr, code := runPgbench(t, bin, `\set x `+src+"\n", "-n", "-t", "1", "--random-seed=3", "-D", "dbad=1.5x", dsn)
		want := ""
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "pgbench: error: ") && !strings.Contains(l, "aborted") {
				want = strings.TrimPrefix(l, "pgbench: error: ")
				break
			}
		}
		if code != 2 || want == "" {
			t.Errorf("%s: pgbench exited %d without an evaluation error:\n%s", src, code, stderr)
			continue
		}
		e, err := ParseExpr(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		_, err = Eval(e, newClients(3, 1, defs)[0])
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", src, err, want)
		}
	}
}

// TestClientStreamsMatchPgbench: with several clients each client draws from
// its own generator, seeded in pgbench's order, and default_seed comes after
// them: the multiset of values printed by pgbench is the one computed here.
func TestClientStreamsMatchPgbench(t *testing.T) {
	bin := realPgbench(t)
	dsn := pgtest.NewDatabase(t)
	exprs := []string{
		":client_id * 10000000 + random(1, 1000000)",
		":client_id * 10000000 + random_zipfian(1, 1000000, 1.2)",
		":client_id * 10000000 + permute(random(0, 999), 1000)",
		":client_id * 100 + hash(1) % 100",
	}
	lines := setLines(exprs)
	const clients = 3
	stderr, code := runPgbench(t, bin, strings.Join(lines, "\n")+"\n", "-n", "-t", "2", "-c", "3", "-j", "1", "--random-seed=7", dsn)
	got := debugLines(stderr)
	if code != 0 || len(got) != clients*2*len(exprs) {
		t.Fatalf("pgbench exited %d with %d debug lines:\n%s", code, len(got), stderr)
	}
	want := map[string]int{}
	for _, c := range newClients(7, clients, nil) {
		c.evalSets(t, lines)
		c.evalSets(t, lines)
		for _, l := range c.debug {
			want[l]++
		}
	}
	for _, l := range got {
		want[l]--
	}
	for l, n := range want {
		if n != 0 {
			t.Errorf("%s: printed %d times more by this package than by pgbench", l, n)
		}
	}
}
