package tpcc

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/driver"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// This file holds the tests that run both paths side by side: helpers to
// copy a loaded database and to execute one keyed-in transaction on either
// path, and the equivalence test.

var bothPaths = []string{PathClient, PathServer}

// loadedCopies loads one database and returns n copies of it (CREATE
// DATABASE ... TEMPLATE): the same rows, the same load timestamps, and
// statistics counters that start at zero.
func loadedCopies(t *testing.T, warehouses, n int) []string {
	t.Helper()
	ctx := context.Background()
	src := loadForRun(t, warehouses)
	srcCfg, err := pgx.ParseConfig(src)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, pgtest.AdminDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var out []string
	for range n {
		dsn := pgtest.NewDatabase(t) // a name and its cleanup
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		name := pgx.Identifier{cfg.Database}.Sanitize()
		if _, err := admin.Exec(ctx, "DROP DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		// The loader's connections may take a moment to go away.
		for deadline := time.Now().Add(30 * time.Second); ; {
			_, err = admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+pgx.Identifier{srcCfg.Database}.Sanitize())
			var pgErr *pgconn.PgError
			if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("copying the loaded database: %v", err)
		}
		out = append(out, dsn)
	}
	return out
}

// pathSession connects to dsn and returns a session ready for either path.
func pathSession(t *testing.T, dsn string) *session {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if err := InstallFunctions(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return &session{conn: conn}
}

// step is one keyed-in transaction: its kind and a private copy of its input.
type step struct {
	kind int
	no   newOrderInput
	pay  paymentInput
	os   orderStatusInput
	sl   stockLevelInput
	dreq deliveryRequest
	bad  bool // an input no valid terminal keys: both paths must fail it alike
}

// keyIn draws the next input of t and keeps a copy.
func keyInStep(t *terminal, kind int) step {
	t.keyIn(kind)
	s := step{kind: kind, pay: t.pay, os: t.os, sl: t.sl, dreq: t.dreq}
	s.no = t.no
	s.no.lines = slices.Clone(t.no.lines)
	return s
}

// noSuchCustomer is two Payments of customers that do not exist, one by a
// last name no customer has and one by a c_id beyond 3,000, keyed as the
// first Payment of steps was: both paths must fail them the same way and
// change nothing (no w_ytd or d_ytd without its history row).
func noSuchCustomer(steps []step) []step {
	for _, s := range steps {
		if s.kind != kindPayment {
			continue
		}
		byName, byID := s, s
		byName.bad, byID.bad = true, true
		byName.pay.byName, byName.pay.c, byName.pay.last = true, 0, "NOSUCHNAME"
		byID.pay.byName, byID.pay.c, byID.pay.last = false, customersPerDistrict+1, ""
		return []step{byName, byID}
	}
	return nil
}

// samePaymentFailure requires that both paths failed a Payment with the same
// error (SQLSTATE and message).
func samePaymentFailure(t *testing.T, errs [2]error) {
	t.Helper()
	if errs[0] == nil || errs[1] == nil {
		t.Errorf("a Payment of no customer: client error %v, server error %v; both must fail", errs[0], errs[1])
		return
	}
	if driver.SQLState(errs[0]) != driver.SQLState(errs[1]) || errs[0].Error() != errs[1].Error() {
		t.Errorf("a Payment of no customer fails differently:\nclient %v (SQLSTATE %s)\nserver %v (SQLSTATE %s)",
			errs[0], driver.SQLState(errs[0]), errs[1], driver.SQLState(errs[1]))
	}
}

// runStep executes s on ss by path and returns a deep copy of its output.
func runStep(ctx context.Context, ss *session, path string, s *step) (any, error) {
	server := path == PathServer
	var err error
	switch s.kind {
	case kindNewOrder:
		if server {
			_, err = ss.newOrderServer(ctx, &s.no)
		} else {
			_, err = ss.newOrderClient(ctx, &s.no)
		}
		out := ss.out.no
		out.Lines = slices.Clone(out.Lines)
		return out, err
	case kindPayment:
		if server {
			err = ss.paymentServer(ctx, &s.pay)
		} else {
			err = ss.paymentClient(ctx, &s.pay)
		}
		return ss.out.pay, err
	case kindOrderStatus:
		if server {
			err = ss.orderStatusServer(ctx, &s.os)
		} else {
			err = ss.orderStatusClient(ctx, &s.os)
		}
		out := ss.out.os
		out.Lines = slices.Clone(out.Lines)
		return out, err
	case kindDelivery:
		var out deliveryOutcome
		if server {
			err = ss.deliveryServer(ctx, s.dreq, &out)
		} else {
			err = ss.deliveryClient(ctx, s.dreq, &out)
		}
		return out, err
	case kindStockLevel:
		if server {
			_, err = ss.stockLevelServer(ctx, &s.sl)
		} else {
			_, err = ss.stockLevelClient(ctx, &s.sl)
		}
		return ss.out.sl, err
	}
	return nil, fmt.Errorf("unknown kind %d", s.kind)
}

// runTimes replaces the times at or after cutoff (set by the transactions
// themselves) with a marker, so that outputs of two runs compare.
func runTimes(out any, cutoff time.Time) any {
	marker := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	fix := func(t *time.Time) {
		if !t.IsZero() && !t.Before(cutoff) {
			*t = marker
		}
	}
	switch o := out.(type) {
	case NewOrderOutput:
		fix(&o.EntryD)
		return o
	case OrderStatusOutput:
		fix(&o.EntryD)
		for i := range o.Lines {
			fix(&o.Lines[i].DeliveryD)
		}
		return o
	case deliveryOutcome:
		o.completed = time.Time{}
		return o
	}
	return out
}

// tableDigests returns an md5 per table of all its rows in key order, with
// the timestamps the run set (at or after cutoff) replaced by a marker.
func tableDigests(t *testing.T, conn *pgx.Conn, cutoff time.Time) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range TableNames() {
		def, _ := tableByName(table)
		var cols []string
		for _, c := range def.columns {
			if strings.HasPrefix(c.typ, "timestamp") {
				cols = append(cols, fmt.Sprintf("CASE WHEN t.%s >= $1 THEN 'run' ELSE t.%[1]s::text END", c.name))
			} else {
				cols = append(cols, "t."+c.name)
			}
		}
		order := strings.Join(cols, ", ") // history has no key: order by everything
		if len(def.primaryKey) > 0 {
			order = strings.Join(def.primaryKey, ", ")
		}
		var sum string
		q := "SELECT md5(string_agg(concat_ws('|', " + strings.Join(cols, ", ") + "), ',' ORDER BY " + order + ")) FROM " + table + " t WHERE $1::timestamp IS NOT NULL"
		if err := conn.QueryRow(context.Background(), q, cutoff).Scan(&sum); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		out[table] = sum
	}
	return out
}

// tupleCounts returns the rows each table inserted, updated and deleted,
// committed or rolled back, as the statistics count them: what a
// transaction did, including the work of the rolled-back New-Orders. The
// session's own pending counts are flushed first.
func tupleCounts(t *testing.T, conn *pgx.Conn) map[string][3]int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables
		WHERE schemaname = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][3]int64{}
	for rows.Next() {
		var name string
		var c [3]int64
		if err := rows.Scan(&name, &c[0], &c[1], &c[2]); err != nil {
			t.Fatal(err)
		}
		out[name] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPathsEquivalent feeds the client and the server path the same stream
// of keyed-in transactions (one terminal per warehouse, inputs drawn once,
// Deliveries executed at once, every twelfth New-Order with the unused item)
// against two copies of one database, and requires the same output from
// every transaction, the same table contents, and the same row operations
// per table: the two paths are the same transactions (clause 2), also when a
// New-Order rolls back (2.4.2.3).
func TestPathsEquivalent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsns := loadedCopies(t, 2, 2)
	sessions := []*session{pathSession(t, dsns[0]), pathSession(t, dsns[1])}
	meta, err := ReadMeta(ctx, sessions[0].conn)
	if err != nil {
		t.Fatal(err)
	}
	var cutoff time.Time
	if err := sessions[0].conn.QueryRow(ctx, "SELECT localtimestamp").Scan(&cutoff); err != nil {
		t.Fatal(err)
	}

	// The input stream: drawn once, independent of the path, and the same
	// again from the same seed.
	cRun := NewRunConstants(meta.Load, NewRand(2026))
	draw := func() []step {
		master := NewRand(2027)
		var terms []*terminal
		for w := 1; w <= 2; w++ {
			term := &terminal{w: w, slDistrict: w, warehouses: 2, rand: NewRand(master.Uint64()), c: cRun}
			term.deck, err = driver.NewDeck(DefaultWeights(), func(n int) int { return term.rand.IntRange(0, n-1) })
			if err != nil {
				t.Fatal(err)
			}
			terms = append(terms, term)
		}
		var steps []step
		newOrders := 0
		for i := range 460 {
			term := terms[i%2]
			s := keyInStep(term, term.deck.Next())
			if s.kind == kindNewOrder {
				if newOrders++; newOrders%12 == 0 {
					s.no.lines[len(s.no.lines)-1].item = unusedItem // the last line (2.4.1.5.1)
				}
			}
			steps = append(steps, s)
		}
		return steps
	}
	steps := draw()
	if again := draw(); !reflect.DeepEqual(steps, again) {
		t.Fatal("the same seed drew different inputs")
	}
	var rollbacks, byName, byID, remotePay, remoteLines int
	for _, s := range steps {
		switch s.kind {
		case kindNewOrder:
			if s.no.lines[len(s.no.lines)-1].item == unusedItem {
				rollbacks++
			}
			remoteLines += s.no.remote
		case kindPayment:
			if s.pay.byName {
				byName++
			} else {
				byID++
			}
			if s.pay.remote {
				remotePay++
			}
		}
	}
	if rollbacks == 0 || byName == 0 || byID == 0 || remotePay == 0 || remoteLines == 0 {
		t.Fatalf("the stream misses a case: rollbacks %d, by name %d, by id %d, remote payments %d, remote lines %d",
			rollbacks, byName, byID, remotePay, remoteLines)
	}

	steps = append(steps, noSuchCustomer(steps)...)

	diffs := 0
	for i := range steps {
		var outs [2]any
		var errs [2]error
		for p, path := range bothPaths {
			out, err := runStep(ctx, sessions[p], path, &steps[i])
			errs[p] = err
			if err != nil && !steps[i].bad {
				t.Fatalf("step %d (%s) on the %s path: %v", i, kinds[steps[i].kind].name, path, err)
			}
			outs[p] = runTimes(out, cutoff)
		}
		if steps[i].bad {
			samePaymentFailure(t, errs)
			continue
		}
		if !reflect.DeepEqual(outs[0], outs[1]) {
			if diffs++; diffs <= 3 {
				t.Errorf("step %d (%s): outputs differ\nclient %+v\nserver %+v", i, kinds[steps[i].kind].name, outs[0], outs[1])
			}
		}
	}
	if diffs > 3 {
		t.Errorf("... %d steps in all have different outputs", diffs)
	}

	client, server := tableDigests(t, sessions[0].conn, cutoff), tableDigests(t, sessions[1].conn, cutoff)
	for _, table := range TableNames() {
		if client[table] != server[table] {
			t.Errorf("table %s differs between the paths", table)
		}
	}
	cc, sc := tupleCounts(t, sessions[0].conn), tupleCounts(t, sessions[1].conn)
	for _, table := range TableNames() {
		if cc[table] != sc[table] {
			t.Errorf("table %s: rows inserted/updated/deleted client %v, server %v", table, cc[table], sc[table])
		}
	}
	if cc["orders"][0] == 0 {
		t.Error("no orders inserted: the statistics did not count")
	}
	mustCheck(t, dsns[0]) // the other has the same rows
}
