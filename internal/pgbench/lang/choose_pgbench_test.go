package lang

import (
	"context"
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

// TestThreadStreamsMatchPgbench: with two threads each thread chooses
// scripts from its own generator (thread 1's drawn after thread 0's three)
// and each client draws from its own; per client, the scripts pgbench ran
// and the values they drew (recorded in a table, since two threads' debug
// output interleaves) are the ones computed here.
func TestThreadStreamsMatchPgbench(t *testing.T) {
	bin := realPgbench(t)
	conn, dsn := pgtest.Conn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "create table obs (id bigserial, c int, s int, v int)"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	weights := []int64{2, 7}
	args := []string{"-n", "-t", "40", "-c", "2", "-j", "2", "--random-seed=5"}
	for i, w := range weights {
		p := filepath.Join(dir, fmt.Sprintf("s%d.sql", i))
		script := fmt.Sprintf("\\set x random(1, 999)\ninsert into obs (c, s, v) values (:client_id, %d, :x);\n", i)
		if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-f", fmt.Sprintf("%s@%d", p, w))
	}
	if out, code := runPgbenchArgs(t, bin, append(args, dsn)...); code != 0 {
		t.Fatalf("pgbench exited %d:\n%s", code, out)
	}
	rows, err := conn.Query(ctx, "select c, s, v from obs order by id")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]string{}
	for rows.Next() {
		var c, s, v int
		if err := rows.Scan(&c, &s, &v); err != nil {
			t.Fatal(err)
		}
		got[c] = append(got[c], fmt.Sprintf("script %d value %d", s, v))
	}
	st := NewSeeds(5).NewStreams(2, 2, false)
	for c := 0; c < 2; c++ {
		if len(got[c]) != 40 {
			t.Fatalf("client %d ran %d transactions", c, len(got[c]))
		}
		for i, g := range got[c] {
			s := ChooseScript(st.Threads[c].Choose, weights, 9)
			if want := fmt.Sprintf("script %d value %d", s, Rand(st.Clients[c], 1, 999)); g != want {
				t.Fatalf("client %d, transaction %d: pgbench ran %s, here %s", c, i, g, want)
			}
		}
	}
}
