package tpcc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgoltp/pgoltp/internal/metrics"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/workload"
)

func TestParseSchemas(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // joined names, or "error: <text>"
	}{
		{"2", "tpcc1,tpcc2"},
		{"1", "tpcc1"},
		{"a,b", "a,b"},
		{" a , b ", "a,b"},
		{"bench", "bench"},
		{"0", "error: count from 1"},
		{"-3", "error: count from 1"},
		{"a,,b", "error: empty name"},
		{"a,b,a", `error: "a" twice`},
	} {
		got, err := ParseSchemas(c.in)
		if want, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ParseSchemas(%q) = %v, %v; want an error with %q", c.in, got, err, want)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != c.want {
			t.Errorf("ParseSchemas(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
	if f := SchemasText(DefaultSchemas(3)); f != "3" {
		t.Errorf("SchemasText(tpcc1..tpcc3) = %q, want 3", f)
	}
	if f := SchemasText([]string{"a", "tpcc2"}); f != "a,tpcc2" {
		t.Errorf("SchemasText(a,tpcc2) = %q", f)
	}
}

// TestLoadSchemas: 'load --schemas 2' builds two complete TPC-C databases in
// tpcc1 and tpcc2 (nothing in public), each passing the consistency check on
// its own; they are independent: breaking one fails its check only.
func TestLoadSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	names := DefaultSchemas(2)
	var progress bytes.Buffer
	st, err := Load(ctx, dsn, LoadOptions{Warehouses: 1, Workers: 2, Schemas: names, Progress: &progress})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if len(st.Schemas) != 2 || st.Rows["customer"] != 2*30_000 || st.Rows["stock"] != 2*100_000 {
		t.Fatalf("load stats: %d schemas, rows %v; want 2 schemas of 30000 customers and 100000 stock each", len(st.Schemas), st.Rows)
	}
	seeds := map[uint64]bool{}
	for i, s := range st.Schemas {
		if s.Schema != names[i] || s.Workers != 1 || s.Rows["customer"] != 30_000 {
			t.Errorf("schema %d: %s with %d workers, %d customers; want %s, 1 worker (2 shared by 2 schemas), 30000", i, s.Schema, s.Workers, s.Rows["customer"], names[i])
		}
		seeds[s.Seed] = true
		meta, err := ReadMeta(ctx, connect(t, dsn, s.Schema))
		if err != nil || !meta.Complete || meta.Warehouses != 1 || meta.Seed != s.Seed {
			t.Errorf("schema %s meta %+v, %v: want a complete load of 1 warehouse, seed %d", s.Schema, meta, err, s.Seed)
		}
	}
	if len(seeds) != 2 {
		t.Errorf("both schemas drew seed %v: without --seed each draws its own", seeds)
	}
	for _, n := range names {
		if !strings.Contains(progress.String(), n+": ") {
			t.Errorf("progress names no line for %s:\n%s", n, progress.String())
		}
	}
	if _, err := ReadMeta(ctx, connect(t, dsn, DefaultSchema)); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("public holds a load (%v): --schemas must load only the named schemas", err)
	}

	rep, err := Check(ctx, dsn, CheckOptions{Schemas: names, Fresh: FreshYes})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || len(rep.Schemas) != 2 || rep.Warehouses != 2 {
		t.Fatalf("check of a fresh load: passed %v, %d schemas, %d warehouses; failed %v", rep.Passed, len(rep.Schemas), rep.Warehouses, rep.Failed())
	}
	for i, r := range rep.Schemas {
		if r.Schema != names[i] || !r.Passed || len(r.Results) == 0 {
			t.Errorf("schema %s: passed %v with %d results", r.Schema, r.Passed, len(r.Results))
		}
	}
	if len(rep.Results) != len(rep.Schemas[0].Results)+len(rep.Schemas[1].Results) {
		t.Errorf("merged report has %d results, want the schemas' %d + %d", len(rep.Results), len(rep.Schemas[0].Results), len(rep.Schemas[1].Results))
	}

	// Condition 2 (clause 3.3.2.2) ties d_next_o_id to the orders: break it in tpcc1 only.
	if _, err := connect(t, dsn, "tpcc1").Exec(ctx, "UPDATE district SET d_next_o_id = d_next_o_id + 5 WHERE d_w_id = 1 AND d_id = 1"); err != nil {
		t.Fatal(err)
	}
	rep, err = Check(ctx, dsn, CheckOptions{Schemas: names, Fresh: FreshYes})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || rep.Schemas[0].Passed || !rep.Schemas[1].Passed {
		t.Fatalf("after breaking tpcc1: passed %v (tpcc1 %v, tpcc2 %v); want only tpcc1 to fail", rep.Passed, rep.Schemas[0].Passed, rep.Schemas[1].Passed)
	}
	for _, f := range rep.Failed() {
		if !strings.HasSuffix(f.Name, "[tpcc1]") {
			t.Errorf("failed check %s is not named by tpcc1", f.Name)
		}
	}
	if err := rep.Verdict(); err == nil || !strings.Contains(err.Error(), "condition_2[tpcc1]") {
		t.Errorf("verdict %v should name condition_2[tpcc1]", err)
	}

	// A schema that holds no load is named, with the fix.
	_, err = Check(ctx, dsn, CheckOptions{Schemas: []string{"tpcc2", "tpcc3"}})
	var se *SchemaError
	if !errors.As(err, &se) || se.Schema != "tpcc3" || !errors.Is(err, ErrNotLoaded) {
		t.Errorf("check of a missing schema: %v; want a SchemaError about tpcc3 wrapping ErrNotLoaded", err)
	}
}

// TestRunSchemas drives two schemas of one warehouse each from one run, on
// both paths: every district of every schema gets New-Orders, each schema
// reports its own result, the merged tpmC is their sum, and the merged
// histograms are exactly the merge of theirs.
func TestRunSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	names := []string{"tpcc1", "tpcc2"}
	if _, err := Load(ctx, dsn, LoadOptions{Warehouses: 1, Workers: 2, Schemas: names, Seed: 11}); err != nil {
		t.Fatalf("load: %v", err)
	}
	nextOIDs := func() map[string]int {
		out := map[string]int{}
		for _, s := range names {
			rows, err := connect(t, dsn, s).Query(ctx, `SELECT d_w_id, d_id, d_next_o_id FROM district`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var w, d, next int
				if err := rows.Scan(&w, &d, &next); err != nil {
					t.Fatal(err)
				}
				out[fmt.Sprintf("%s/%d/%d", s, w, d)] = next
			}
			if rows.Err() != nil {
				t.Fatal(rows.Err())
			}
		}
		return out
	}
	for _, path := range []string{PathClient, PathServer} {
		t.Run(path, func(t *testing.T) {
			before := nextOIDs()
			var progress, dlog bytes.Buffer
			// A whole deck per terminal (clause 5.2.4.2: 10 New-Orders in 23
			// cards), not a duration: on a busy machine a 3 s run left a
			// district without a New-Order (as TestRunDrivesEveryWarehouse's).
			w := &Workload{Options: RunOptions{Path: path, Schemas: names, Conns: 1, TxnsPerTerminal: 23, Seed: 5,
				Progress: time.Second, ProgressOut: &progress, DeliveryLog: &dlog}}
			if err := w.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := w.Ready(ctx, dsn); err != nil {
				t.Fatalf("ready: %v", err)
			}
			start := time.Now()
			out, err := w.Run(ctx, dsn, workload.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ran := time.Since(start)
			res := out.Detail.(*RunResult)
			if len(res.Schemas) != 2 {
				t.Fatalf("%d schema results, want 2", len(res.Schemas))
			}
			after := nextOIDs()
			if len(after) != 2*districtsPerWarehouse {
				t.Fatalf("%d districts over both schemas, want %d", len(after), 2*districtsPerWarehouse)
			}
			for k, next := range after {
				if next <= before[k] {
					t.Errorf("%s (schema/warehouse/district): d_next_o_id %d did not move", k, next)
				}
			}

			var sumTpmC, sumNOPM, sumTotal float64
			var sumAudits int
			merged := metrics.NewHistogram()
			for i, s := range res.Schemas {
				if s.Options.Schema != names[i] || s.Options.Terminals != 10 || s.Options.Conns != 1 || s.LoadedWarehouses != 1 {
					t.Errorf("schema %d: %s, %d terminals on %d conns, %d warehouses; want %s, 10 on 1, 1", i, s.Options.Schema,
						s.Options.Terminals, s.Options.Conns, s.LoadedWarehouses, names[i])
				}
				if s.TpmC <= 0 || s.ErrorsTotal != 0 || len(s.Audits) == 0 {
					t.Errorf("schema %s: tpmC %.1f, %d errors, %d audits", s.Options.Schema, s.TpmC, s.ErrorsTotal, len(s.Audits))
				}
				if s.Measured != res.Measured || !s.MeasureStart.Equal(res.MeasureStart) {
					t.Errorf("schema %s measured %v from %v, the run %v from %v: one clock for all", s.Options.Schema, s.Measured, s.MeasureStart, res.Measured, res.MeasureStart)
				}
				sumTpmC += s.TpmC
				sumNOPM += s.NOPM
				sumTotal += s.TpmTotal
				sumAudits += len(s.Audits)
				merged.Merge(s.Total.Hists[kindNewOrder])
			}
			if !near(sumTpmC, res.TpmC) || !near(sumNOPM, res.NOPM) || !near(sumTotal, res.TpmTotal) {
				t.Errorf("per-schema tpmC %.6f, NOPM %.6f, tpmTOTAL %.6f add up to %.6f, %.6f, %.6f merged",
					sumTpmC, sumNOPM, sumTotal, res.TpmC, res.NOPM, res.TpmTotal)
			}
			no := res.Total.Hists[kindNewOrder]
			if no.TotalCount() != res.Schemas[0].Txn("new_order").Count+res.Schemas[1].Txn("new_order").Count {
				t.Errorf("merged New-Orders %d, want %d + %d", no.TotalCount(), res.Schemas[0].Txn("new_order").Count, res.Schemas[1].Txn("new_order").Count)
			}
			if !no.Equals(merged) {
				t.Errorf("merged New-Order histogram (n=%d, p99 %d µs) is not the merge of the schemas' (n=%d, p99 %d µs)",
					no.TotalCount(), no.ValueAtQuantile(99), merged.TotalCount(), merged.ValueAtQuantile(99))
			}
			// The reported p99 is the union's, not a mean of the schemas' p99s.
			if got, want := res.Txn("new_order").Latency.P99, time.Duration(merged.ValueAtPercentilesSlice([]float64{99})[0])*time.Microsecond; got != want {
				t.Errorf("merged New-Order p99 %v, want %v from the merged histograms", got, want)
			}
			if len(res.Audits) != sumAudits || !res.AuditsPass() {
				t.Errorf("merged audits: %d (want the schemas' %d), pass %v", len(res.Audits), sumAudits, res.AuditsPass())
			}
			if res.Options.Terminals != 20 || res.Options.Conns != 2 || res.LoadedWarehouses != 2 {
				t.Errorf("merged options: %d terminals, %d conns, %d warehouses; want the totals 20, 2, 2", res.Options.Terminals, res.Options.Conns, res.LoadedWarehouses)
			}

			// The stored form: the merged histograms, and a figure per schema.
			if got := out.Latency["new_order"]; got == nil || !hdrhistogram.Import(got).Equals(no) {
				t.Errorf("result latency for new_order: %v, want the merged histogram", got)
			}
			figures := map[string]float64{}
			for _, f := range out.Headline {
				figures[f.Name] = f.Value
			}
			for _, s := range res.Schemas {
				if v, ok := figures["tpmC["+s.Options.Schema+"]"]; !ok || v != math.Floor(s.TpmC) {
					t.Errorf("headline tpmC[%s] = %v (present %v), want %v", s.Options.Schema, v, ok, math.Floor(s.TpmC))
				}
				for _, name := range []string{"NOPM", "New-Order p90", "New-Order p99", "audits failed"} {
					if _, ok := figures[name+"["+s.Options.Schema+"]"]; !ok {
						t.Errorf("headline lacks %s[%s]", name, s.Options.Schema)
					}
				}
			}
			if figures["tpmC"] != math.Floor(res.TpmC) {
				t.Errorf("headline tpmC %v, want the merged %v", figures["tpmC"], math.Floor(res.TpmC))
			}

			var sum bytes.Buffer
			if err := res.WriteSummary(&sum); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if !strings.Contains(sum.String(), "  "+n+" ") {
					t.Errorf("summary has no line for %s:\n%s", n, sum.String())
				}
				if !strings.Contains(dlog.String(), "schema="+n+" ") {
					t.Errorf("delivery log has no line of %s", n)
				}
			}
			progressOncePerSecond(t, progress.String(), ran, res.Measured)
			chk, err := w.Check(ctx, dsn)
			if err != nil || !chk.Passed || len(CheckReportOf(chk).Schemas) != 2 {
				t.Errorf("check after the run: %v, %+v; want both schemas checked and passed", err, chk)
			}
		})
	}

	// A schema that is not loaded is refused before anything runs, naming the fix.
	w := &Workload{Options: RunOptions{Schemas: []string{"tpcc1", "tpcc9"}}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	err := w.Ready(ctx, dsn)
	var se *SchemaError
	if !errors.Is(err, ErrNotLoaded) || !errors.As(err, &se) || se.Schema != "tpcc9" || !strings.Contains(err.Error(), "tpcc9") {
		t.Errorf("run on a missing schema: %v; want ErrNotLoaded naming tpcc9 (a SchemaError: the command names the fix)", err)
	}
	if _, err := Run(ctx, dsn, RunOptions{Schemas: []string{"tpcc1", "tpcc9"}, Duration: time.Second}); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("Run on a missing schema: %v, want ErrNotLoaded", err)
	}
}

// near says whether a sum of per-schema rates equals the merged rate, up to
// floating-point rounding (the counts are exact; the window is shared).
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestRunOptionsSchemaAndSchemas(t *testing.T) {
	o := RunOptions{Schema: "bench", Schemas: []string{"a", "b"}}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "schemas") {
		t.Errorf("--schema with --schemas: %v, want an error naming both", err)
	}
	l := LoadOptions{Warehouses: 1, Schema: "bench", Schemas: []string{"a"}}
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "schemas") {
		t.Errorf("load --schema with --schemas: %v, want an error naming both", err)
	}
}

// progressOncePerSecond checks a run's progress at 1 s: one line a second
// at most for the whole run (one per schema would be twice as many), at
// least one.
func progressOncePerSecond(t *testing.T, progress string, ran, measured time.Duration) {
	t.Helper()
	// The meter prints a line each full second it has measured and none at
	// the end, so a run measured for under a second (a deck of 23 cards on a
	// fast machine; CI at 6f42373 measured 1.5 s from connect to finish)
	// rightly prints none: ask for one only when it measured well over one.
	least := 0
	if measured >= 1500*time.Millisecond {
		least = 1
	}
	if lines, most := strings.Count(progress, "\n"), int(ran/time.Second)+1; lines < least || lines > most {
		t.Errorf("%d progress lines in a %v run (%v measured) at 1 s: want %d to %d, at most one a second for the whole run, not one per schema:\n%s",
			lines, ran.Round(time.Millisecond), measured.Round(time.Millisecond), least, most, progress)
	}
}
