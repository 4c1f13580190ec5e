package tpcb

import (
	"fmt"
	"strconv"
)

// Row counts per unit of scale, as pgbench's nbranches/ntellers/naccounts.
const (
	BranchesPerScale = 1
	TellersPerScale  = 10
	AccountsPerScale = 100000
)

// bigintScale is pgbench's SCALE_32BIT_THRESHOLD: from this scale on, aid
// exceeds int4 and pgbench declares the aid columns bigint.
const bigintScale = 20000

// Table names, exactly pgbench's.
const (
	TableAccounts = "pgbench_accounts"
	TableBranches = "pgbench_branches"
	TableTellers  = "pgbench_tellers"
	TableHistory  = "pgbench_history"
)

// ExtraIndexName is the optional (bid, abalance) index on pgbench_accounts.
// Indexing abalance, the column every transaction updates, makes every update
// non-HOT: the setting of the well-known billion-transaction soak study.
const ExtraIndexName = "pgbench_accounts_bid_abalance_idx"

// tableDef is one pgbench table: pgbench's ddlinfo (pgbench.c, initCreateTables).
type tableDef struct {
	name           string
	cols           string // aid as int4
	bigCols        string // aid as int8, used from bigintScale on
	withFillfactor bool
}

// tables lists the tables in pgbench's creation order.
var tables = []tableDef{
	{TableHistory,
		"tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
		"tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)", false},
	{TableTellers,
		"tid int not null,bid int,tbalance int,filler char(84)",
		"tid int not null,bid int,tbalance int,filler char(84)", true},
	{TableAccounts,
		"aid    int not null,bid int,abalance int,filler char(84)",
		"aid bigint not null,bid int,abalance int,filler char(84)", true},
	{TableBranches,
		"bid int not null,bbalance int,filler char(88)",
		"bid int not null,bbalance int,filler char(88)", true},
}

// dropTablesSQL is pgbench's "d" init step.
const dropTablesSQL = "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"

// primaryKeySQL is pgbench's "p" init step.
var primaryKeySQL = []string{
	"alter table pgbench_branches add primary key (bid)",
	"alter table pgbench_tellers add primary key (tid)",
	"alter table pgbench_accounts add primary key (aid)",
}

// foreignKeySQL is pgbench's "f" init step.
var foreignKeySQL = []string{
	"alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
	"alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
}

// extraIndexSQL creates the optional (bid, abalance) index.
const extraIndexSQL = "create index " + ExtraIndexName + " on pgbench_accounts (bid, abalance)"

// vacuumSQL is pgbench's "v" init step.
var vacuumSQL = []string{
	"vacuum analyze pgbench_branches",
	"vacuum analyze pgbench_tellers",
	"vacuum analyze pgbench_accounts",
	"vacuum analyze pgbench_history",
}

// PartitionMethod is how pgbench_accounts is partitioned, as pgbench's
// --partition-method.
type PartitionMethod string

const (
	PartitionNone  PartitionMethod = "none"
	PartitionRange PartitionMethod = "range"
	PartitionHash  PartitionMethod = "hash"
)

// schema is the DDL for one scale, fillfactor and partitioning. All values in
// it are integers validated by LoadOptions.validate, so building it with
// strconv is safe; no user text ever reaches the SQL.
type schema struct {
	scale      int
	fillfactor int
	partitions int
	method     PartitionMethod
	unlogged   bool
}

func (s schema) bigint() bool { return s.scale >= bigintScale }

func (s schema) accounts() int64 { return int64(s.scale) * AccountsPerScale }

// createTables returns pgbench's "t" init step: the four tables, then the
// partitions of pgbench_accounts.
func (s schema) createTables() []string {
	var out []string
	ff := " with (fillfactor=" + strconv.Itoa(s.fillfactor) + ")"
	for _, t := range tables {
		cols := t.cols
		if s.bigint() {
			cols = t.bigCols
		}
		q := "create"
		if s.unlogged {
			q += " unlogged"
		}
		q += " table " + t.name + "(" + cols + ")"
		if s.partitions > 0 && t.name == TableAccounts {
			q += " partition by " + string(s.method) + " (aid)"
		} else if t.withFillfactor {
			q += ff
		}
		out = append(out, q)
	}
	return append(out, s.createPartitions()...)
}

// partitionName is the name pgbench gives partition p (1-based).
func partitionName(p int) string { return TableAccounts + "_" + strconv.Itoa(p) }

// rangeBounds returns the aid range [lo, hi) that range partition p (1-based)
// holds, with pgbench's part_size; the first and last are open-ended in the
// DDL (minvalue/maxvalue) but hold exactly these rows.
func (s schema) rangeBounds(p int) (lo, hi int64) {
	n := int64(s.partitions)
	size := (s.accounts() + n - 1) / n
	lo = int64(p-1)*size + 1
	hi = int64(p)*size + 1
	if hi > s.accounts()+1 {
		hi = s.accounts() + 1
	}
	if lo > hi {
		lo = hi
	}
	return lo, hi
}

// createPartitions mirrors pgbench.c createPartitions.
func (s schema) createPartitions() []string {
	var out []string
	for p := 1; p <= s.partitions; p++ {
		q := "create"
		if s.unlogged {
			q += " unlogged"
		}
		q += " table " + partitionName(p) + "\n  partition of pgbench_accounts\n  for values "
		switch s.method {
		case PartitionRange:
			n := int64(s.partitions)
			size := (s.accounts() + n - 1) / n
			q += "from ("
			if p == 1 {
				q += "minvalue"
			} else {
				q += strconv.FormatInt(int64(p-1)*size+1, 10)
			}
			q += ") to ("
			if p < s.partitions {
				q += strconv.FormatInt(int64(p)*size+1, 10)
			} else {
				q += "maxvalue"
			}
			q += ")"
		case PartitionHash:
			q += fmt.Sprintf("with (modulus %d, remainder %d)", s.partitions, p-1)
		}
		q += " with (fillfactor=" + strconv.Itoa(s.fillfactor) + ")"
		out = append(out, q)
	}
	return out
}
