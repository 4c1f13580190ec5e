package pgbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/term"
)

// tableDDL is one of pgbench's four tables: its columns with 32-bit and
// 64-bit account ids, and whether it takes -F's fillfactor.
type tableDDL struct {
	name, small, big string
	fillfactor       bool
}

var tableDDLs = []tableDDL{
	{"pgbench_history", "tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
		"tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)", false},
	{"pgbench_tellers", "tid int not null,bid int,tbalance int,filler char(84)",
		"tid int not null,bid int,tbalance int,filler char(84)", true},
	{"pgbench_accounts", "aid    int not null,bid int,abalance int,filler char(84)",
		"aid bigint not null,bid int,abalance int,filler char(84)", true},
	{"pgbench_branches", "bid int not null,bbalance int,filler char(88)",
		"bid int not null,bbalance int,filler char(88)", true},
}

func (in *initializer) unlogged() string {
	if in.o.UnloggedTables {
		return " unlogged"
	}
	return ""
}

func (in *initializer) createTables(ctx context.Context) error {
	fmt.Fprintln(in.log.w, "creating tables...")
	for _, t := range tableDDLs {
		cols := t.small
		if in.o.Scale >= scale32BitThreshold {
			cols = t.big
		}
		sql := fmt.Sprintf("create%s table %s(%s)", in.unlogged(), t.name, cols)
		if in.o.PartitionMethod != "" && t.name == "pgbench_accounts" {
			sql += " partition by " + in.o.PartitionMethod + " (aid)"
		} else if t.fillfactor {
			sql += fmt.Sprintf(" with (fillfactor=%d)", in.o.Fillfactor)
		}
		if in.o.Tablespace != "" {
			sql += " tablespace " + pgx.Identifier{in.o.Tablespace}.Sanitize()
		}
		if err := in.exec(ctx, sql); err != nil {
			return err
		}
	}
	if in.o.PartitionMethod != "" {
		return in.createPartitions(ctx)
	}
	return nil
}

// createPartitions splits pgbench_accounts as pgbench does: open-ended first
// and last ranges, or hash moduli.
func (in *initializer) createPartitions(ctx context.Context) error {
	n := in.o.Partitions
	fmt.Fprintf(in.log.w, "creating %d partitions...\n", n)
	size := (int64(nAccounts)*int64(in.o.Scale) + int64(n) - 1) / int64(n)
	for p := 1; p <= n; p++ {
		sql := fmt.Sprintf("create%s table pgbench_accounts_%d\n  partition of pgbench_accounts\n  ", in.unlogged(), p)
		if in.o.PartitionMethod == "hash" {
			sql += fmt.Sprintf("for values with (modulus %d, remainder %d)", n, p-1)
		} else {
			from, to := "minvalue", "maxvalue"
			if p > 1 {
				from = strconv.FormatInt(int64(p-1)*size+1, 10)
			}
			if p < n {
				to = strconv.FormatInt(int64(p)*size+1, 10)
			}
			sql += "for values from (" + from + ") to (" + to + ")"
		}
		sql += fmt.Sprintf(" with (fillfactor=%d)", in.o.Fillfactor)
		if err := in.exec(ctx, sql); err != nil {
			return err
		}
	}
	return nil
}

func (in *initializer) generateServerSide(ctx context.Context) error {
	fmt.Fprintln(in.log.w, "generating data (server-side)...")
	s := int64(in.o.Scale)
	for _, sql := range []string{
		"begin", "",
		fmt.Sprintf("insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, %d) as bid", nBranches*s),
		fmt.Sprintf("insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / %d + 1, 0 from generate_series(1, %d) as tid", nTellers, nTellers*s),
		fmt.Sprintf("insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / %d + 1, 0, '' from generate_series(1, %d) as aid", nAccounts, nAccounts*s),
		"commit",
	} {
		err := in.exec(ctx, sql)
		if sql == "" {
			err = in.truncateTables(ctx)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// generateClientSide fills the tables from the client in one transaction:
// branches and tellers by INSERT, accounts by text COPY (FREEZE on 14 and
// later without partitions), with pgbench's progress lines.
func (in *initializer) generateClientSide(ctx context.Context) error {
	fmt.Fprintln(in.log.w, "generating data (client-side)...")
	if err := in.exec(ctx, "begin"); err != nil {
		return err
	}
	if err := in.truncateTables(ctx); err != nil {
		return err
	}
	s := in.o.Scale
	for i := 0; i < nBranches*s; i++ {
		if err := in.exec(ctx, fmt.Sprintf("insert into pgbench_branches(bid,bbalance) values(%d,0)", i+1)); err != nil {
			return err
		}
	}
	for i := 0; i < nTellers*s; i++ {
		if err := in.exec(ctx, fmt.Sprintf("insert into pgbench_tellers(tid,bid,tbalance) values (%d,%d,0)", i+1, i/nTellers+1)); err != nil {
			return err
		}
	}
	sql := "copy pgbench_accounts from stdin"
	if in.o.Partitions == 0 && serverVersionNum(ctx, in.conn) >= 140000 {
		sql += " with (freeze on)"
	}
	rows := &accountRows{total: int64(nAccounts) * int64(s), start: time.Now(), in: in}
	if _, err := in.conn.PgConn().CopyFrom(ctx, rows, sql); err != nil {
		return in.log.fatal("unexpected copy in result: %s", errorText(err))
	}
	if in.tty {
		fmt.Fprintln(in.log.w)
	}
	return in.exec(ctx, "commit")
}

func serverVersionNum(ctx context.Context, conn *pgx.Conn) int {
	var v int
	_ = conn.QueryRow(ctx, "select current_setting('server_version_num')::int").Scan(&v)
	return v
}

// accountRows is the COPY data of pgbench_accounts, made as it is read, with
// a progress line every 100000 rows (with -q, every 5 seconds).
type accountRows struct {
	in          *initializer
	next, total int64
	start       time.Time
	interval    int // -q: the next report is at interval*5 s
	prevChars   int
	buf         []byte
}

func (r *accountRows) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) && r.next < r.total {
		r.next++
		j := r.next
		r.buf = strconv.AppendInt(r.buf, j, 10)
		r.buf = append(r.buf, '\t')
		r.buf = strconv.AppendInt(r.buf, (j-1)/nAccounts+1, 10)
		r.buf = append(r.buf, "\t0\t\n"...)
		r.progress(j)
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// progress prints pgbench's "N of M tuples (P%) done" line when due.
func (r *accountRows) progress(j int64) {
	q := r.in.o.Quiet
	if !q && j%100000 != 0 || q && j%100 != 0 {
		return
	}
	elapsed := time.Since(r.start).Seconds()
	if q && j != r.total && elapsed < float64(max(r.interval, 1))*5 {
		return
	}
	remaining := float64(r.total-j) * elapsed / float64(j)
	line := fmt.Sprintf("%d of %d tuples (%d%%) done (elapsed %.2f s, remaining %.2f s)", j, r.total, j*100/r.total, elapsed, remaining)
	w := r.in.log.w
	fmt.Fprint(w, line)
	if r.prevChars > len(line) {
		fmt.Fprintf(w, "%*c", r.prevChars-len(line), ' ')
	}
	eol := "\n"
	if r.in.tty {
		eol = "\r"
	}
	fmt.Fprint(w, eol)
	r.prevChars = len(line)
	if q {
		r.interval = int(math.Ceil(elapsed / 5))
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// errorText is what libpq's PQerrorMessage shows for err.
func errorText(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pgErrorText(pg, "")
	}
	return err.Error()
}

// pgErrorText is libpq's message for a server error: the primary line,
// the position lines, then DETAIL, HINT and CONTEXT.
func pgErrorText(pg *pgconn.PgError, position string) string {
	s := pg.Severity + ":  " + pg.Message
	if position != "" {
		s += "\n" + position
	}
	if pg.Detail != "" {
		s += "\nDETAIL:  " + pg.Detail
	}
	if pg.Hint != "" {
		s += "\nHINT:  " + pg.Hint
	}
	if pg.Where != "" {
		s += "\nCONTEXT:  " + pg.Where
	}
	return s
}
