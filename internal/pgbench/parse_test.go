package pgbench

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	pgbenchbin "github.com/pgoltp/pgoltp/internal/pgtest/pgbench"
)

// badCommandLines fail before pgbench connects: pgbench 15's own list
// (002_pgbench_no_server.pl) and getopt_long's corners.
var badCommandLines = []string{
	"-h home -p 5432 -U calvin -d --bad-option",
	"-f no-such-file",
	"-b no-such-builtin",
	"--builtin=select-only@one",
	"-b select-only@-1",
	"-b select-only@99999999999",
	"-b select-only@",
	strings.Repeat("-S ", 129),
	"-c three", "-c8x", "-c 0", "--cl=x", "--client 99999999999", "-c ''",
	"-j eleven", "-i -s two", "-t zil", "-T ten",
	"-N -l --aggregate-interval=5 --log-prefix=notused -t 1000 -T 1",
	"-P 1 --progress-timestamp -l --sampling-rate=0.001 -T 10 -t 1000",
	"--define foobla", "-D =x", "-D x=", "-D 1x=2",
	"-F 1", "-i -F101", "-M no-such-mode", "--progress=0", "--rate=0.0", "-R abc",
	"--latency-limit=0.0", "--sampling-rate=0", "--sampling-rate=1.5", "--aggregate-interval=-3",
	"-b se@0 -b si@0 -b tpcb@0", "-i -S", "-S -F 90", "-b s", "--progress-timestamp",
	"-I dtg", "-i -I dta", "-i -I ''", "--random-seed=one", "--random-seed=12x", "-i --partition-method=BAD",
	"-i --partitions -1", "-i --partition-method=hash", "--max-tries -10", "--max-tries 0",
	"--sampling-rate=0.01", "-l --sampling-rate=0.1 --aggregate-interval=3", "--aggregate-interval=3",
	"--log-prefix=x", "-l -T 1 --aggregate-interval=3", "-l -T 5 --aggregate-interval=3",
	// getopt_long: unknown, ambiguous, missing and unwanted values, bundles,
	// permutation and "--".
	"--not-a-valid-option", "-x", "-c", "--client", "--p", "--p=3", "--foo=bar", "--log=1",
	"a -?", "-nx", "-ic", "db1 db2", "-S db1 -t 3 db2", "-- -S -t", "-nS -- db1 db2",
	"--sel --tr=0", "--show-script=x", "--show-script=s", "-b list", "-S -b list",
	"--show-script=tpcb", "--show-script=simple", "--show-script=select", "-b nope@2",
	"-b ''", "-b tpcb-like@+5 -b x", "-D a=b=c -c x", "-l -T 10 --aggregate-interval 20", "-L -1", "-R 1e-400",
	"--sampling-rate=abc", "-P 1x", "-t 99999999999", "-i -s 0", "-i --partitions=abc", "-M ''",
	"--random-seed=-1 -c x", "--random-seed=5x", "-c 1 -j 0", "-F 50 -c x",
	"--max-tries=abc -T 1", "-b select-only@2147483648", "-i -I ' '",
}

// TestOptionErrorsMatchPgbench runs each bad command line through the real
// pgbench 15 and through Parse and wants the same exit code, stdout and
// stderr (the real one names itself by its path in getopt's messages).
func TestOptionErrorsMatchPgbench(t *testing.T) {
	bin, err := pgbenchbin.Find()
	if err != nil {
		t.Skip("no real pgbench to compare with:", err)
	}
	if out, _ := exec.Command(bin, "-V").Output(); !bytes.Contains(out, []byte("PostgreSQL) 15.")) {
		t.Skipf("the messages are pgbench 15's; %s is %s", bin, out)
	}
	path := regexp.MustCompile(`(?m)^/\S*pgbench:`)
	for _, line := range badCommandLines {
		args := splitArgs(line)
		cmd := exec.Command(bin, args...)
		var wantOut, wantErr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
		_ = cmd.Run()
		var gotOut, gotErr bytes.Buffer
		code := Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &gotOut, Stderr: &gotErr, Getenv: func(string) string { return "" }})
		want := path.ReplaceAllString(wantErr.String(), "pgbench:")
		if code != cmd.ProcessState.ExitCode() || gotOut.String() != wantOut.String() || gotErr.String() != want {
			t.Errorf("pgbench %s:\n got exit %d, stdout %q, stderr\n%s\nwant exit %d, stdout %q, stderr\n%s",
				line, code, gotOut.String(), gotErr.String(), cmd.ProcessState.ExitCode(), wantOut.String(), want)
		}
	}
}

// splitArgs splits on blanks; ” is an empty argument.
func splitArgs(line string) []string {
	var args []string
	for _, f := range strings.Fields(line) {
		if f == "''" {
			f = ""
		}
		args = append(args, f)
	}
	return args
}
