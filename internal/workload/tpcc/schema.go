package tpcc

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// column is one column of a TPC-C table: spec name (clause 1.3, lower case)
// and PostgreSQL type.
type column struct {
	name, typ string
}

// index is a secondary index, built after the data like the primary keys.
type index struct {
	name    string
	columns []string
}

// foreignKey is an optional constraint (--foreign-keys), off by default because
// the spec does not require them and they slow every write.
type foreignKey struct {
	columns []string
	refs    string // referenced table; its primary key columns, in order
}

// tableDef is the single source of truth for one table: its columns, keys,
// indexes, and how it is partitioned.
type tableDef struct {
	name        string
	columns     []column
	primaryKey  []string // empty for history (clause 1.3 requires none)
	indexes     []index
	foreignKeys []foreignKey
	// warehouseColumn is the column the table is hash-partitioned on with
	// --partitions; empty for tables never partitioned (item, and the small
	// warehouse and district tables).
	warehouseColumn string
}

// The nine tables of clause 1.3, in the order they are created. Identifier
// columns are NOT NULL so that a primary key can be attached to an index built
// after the data without another table scan.
var tpccTables = []tableDef{
	{
		name: "warehouse",
		columns: []column{
			{"w_id", "integer NOT NULL"}, {"w_name", "varchar(10)"},
			{"w_street_1", "varchar(20)"}, {"w_street_2", "varchar(20)"}, {"w_city", "varchar(20)"},
			{"w_state", "char(2)"}, {"w_zip", "char(9)"},
			{"w_tax", "numeric(4,4)"}, {"w_ytd", "numeric(12,2)"},
		},
		primaryKey: []string{"w_id"},
	},
	{
		name: "district",
		columns: []column{
			{"d_id", "integer NOT NULL"}, {"d_w_id", "integer NOT NULL"}, {"d_name", "varchar(10)"},
			{"d_street_1", "varchar(20)"}, {"d_street_2", "varchar(20)"}, {"d_city", "varchar(20)"},
			{"d_state", "char(2)"}, {"d_zip", "char(9)"},
			{"d_tax", "numeric(4,4)"}, {"d_ytd", "numeric(12,2)"}, {"d_next_o_id", "integer"},
		},
		primaryKey:  []string{"d_w_id", "d_id"},
		foreignKeys: []foreignKey{{[]string{"d_w_id"}, "warehouse"}},
	},
	{
		name: "customer",
		columns: []column{
			{"c_id", "integer NOT NULL"}, {"c_d_id", "integer NOT NULL"}, {"c_w_id", "integer NOT NULL"},
			{"c_first", "varchar(16)"}, {"c_middle", "char(2)"}, {"c_last", "varchar(16)"},
			{"c_street_1", "varchar(20)"}, {"c_street_2", "varchar(20)"}, {"c_city", "varchar(20)"},
			{"c_state", "char(2)"}, {"c_zip", "char(9)"}, {"c_phone", "char(16)"},
			{"c_since", "timestamp"}, {"c_credit", "char(2)"},
			{"c_credit_lim", "numeric(12,2)"}, {"c_discount", "numeric(4,4)"},
			{"c_balance", "numeric(12,2)"}, {"c_ytd_payment", "numeric(12,2)"},
			{"c_payment_cnt", "integer"}, {"c_delivery_cnt", "integer"}, {"c_data", "varchar(500)"},
		},
		primaryKey: []string{"c_w_id", "c_d_id", "c_id"},
		// Payment and Order-Status look customers up by last name (2.5.2.2, 2.6.2.2).
		indexes:         []index{{"customer_idx_last", []string{"c_w_id", "c_d_id", "c_last", "c_first"}}},
		foreignKeys:     []foreignKey{{[]string{"c_w_id", "c_d_id"}, "district"}},
		warehouseColumn: "c_w_id",
	},
	{
		name: "history",
		columns: []column{
			{"h_c_id", "integer"}, {"h_c_d_id", "integer"}, {"h_c_w_id", "integer"},
			{"h_d_id", "integer"}, {"h_w_id", "integer NOT NULL"},
			{"h_date", "timestamp"}, {"h_amount", "numeric(6,2)"}, {"h_data", "varchar(24)"},
		},
		foreignKeys: []foreignKey{
			{[]string{"h_c_w_id", "h_c_d_id", "h_c_id"}, "customer"},
			{[]string{"h_w_id", "h_d_id"}, "district"},
		},
		warehouseColumn: "h_w_id",
	},
	{
		name: "new_order",
		columns: []column{
			{"no_o_id", "integer NOT NULL"}, {"no_d_id", "integer NOT NULL"}, {"no_w_id", "integer NOT NULL"},
		},
		primaryKey:      []string{"no_w_id", "no_d_id", "no_o_id"},
		foreignKeys:     []foreignKey{{[]string{"no_w_id", "no_d_id", "no_o_id"}, "orders"}},
		warehouseColumn: "no_w_id",
	},
	{
		name: "orders",
		columns: []column{
			{"o_id", "integer NOT NULL"}, {"o_d_id", "integer NOT NULL"}, {"o_w_id", "integer NOT NULL"},
			{"o_c_id", "integer"}, {"o_entry_d", "timestamp"}, {"o_carrier_id", "integer"},
			{"o_ol_cnt", "integer"}, {"o_all_local", "integer"},
		},
		primaryKey: []string{"o_w_id", "o_d_id", "o_id"},
		// Order-Status finds a customer's most recent order (2.6.2.2).
		indexes:         []index{{"orders_idx_customer", []string{"o_w_id", "o_d_id", "o_c_id", "o_id"}}},
		foreignKeys:     []foreignKey{{[]string{"o_w_id", "o_d_id", "o_c_id"}, "customer"}},
		warehouseColumn: "o_w_id",
	},
	{
		name: "order_line",
		columns: []column{
			{"ol_o_id", "integer NOT NULL"}, {"ol_d_id", "integer NOT NULL"}, {"ol_w_id", "integer NOT NULL"},
			{"ol_number", "integer NOT NULL"}, {"ol_i_id", "integer"}, {"ol_supply_w_id", "integer"},
			{"ol_delivery_d", "timestamp"}, {"ol_quantity", "integer"},
			{"ol_amount", "numeric(6,2)"}, {"ol_dist_info", "char(24)"},
		},
		primaryKey: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"},
		foreignKeys: []foreignKey{
			{[]string{"ol_w_id", "ol_d_id", "ol_o_id"}, "orders"},
			{[]string{"ol_supply_w_id", "ol_i_id"}, "stock"},
		},
		warehouseColumn: "ol_w_id",
	},
	{
		name: "item",
		columns: []column{
			{"i_id", "integer NOT NULL"}, {"i_im_id", "integer"}, {"i_name", "varchar(24)"},
			{"i_price", "numeric(5,2)"}, {"i_data", "varchar(50)"},
		},
		primaryKey: []string{"i_id"},
	},
	{
		name: "stock",
		columns: []column{
			{"s_i_id", "integer NOT NULL"}, {"s_w_id", "integer NOT NULL"}, {"s_quantity", "integer"},
			{"s_dist_01", "char(24)"}, {"s_dist_02", "char(24)"}, {"s_dist_03", "char(24)"},
			{"s_dist_04", "char(24)"}, {"s_dist_05", "char(24)"}, {"s_dist_06", "char(24)"},
			{"s_dist_07", "char(24)"}, {"s_dist_08", "char(24)"}, {"s_dist_09", "char(24)"},
			{"s_dist_10", "char(24)"},
			{"s_ytd", "integer"}, {"s_order_cnt", "integer"}, {"s_remote_cnt", "integer"}, {"s_data", "varchar(50)"},
		},
		primaryKey: []string{"s_w_id", "s_i_id"},
		foreignKeys: []foreignKey{
			{[]string{"s_w_id"}, "warehouse"},
			{[]string{"s_i_id"}, "item"},
		},
		warehouseColumn: "s_w_id",
	},
}

// TableNames lists the nine TPC-C tables of clause 1.3.
func TableNames() []string {
	names := make([]string, len(tpccTables))
	for i, t := range tpccTables {
		names[i] = t.name
	}
	return names
}

// tableByName returns the definition of a TPC-C table.
func tableByName(name string) (tableDef, bool) {
	for _, t := range tpccTables {
		if t.name == name {
			return t, true
		}
	}
	return tableDef{}, false
}

// SchemaOptions shape the DDL.
type SchemaOptions struct {
	// Partitions > 1 hash-partitions the tables that have a warehouse column
	// (all but warehouse, district and item) into that many partitions.
	Partitions int
	// Fillfactor per table name (10..100); absent = the PostgreSQL default.
	Fillfactor map[string]int
	// ForeignKeys adds the foreign keys of clause 1.3 after the load.
	ForeignKeys bool
}

// validate checks the options before any work starts.
func (o SchemaOptions) validate() error {
	if o.Partitions < 0 || o.Partitions > 1024 {
		return fmt.Errorf("partitions must be between 0 and 1024, got %d", o.Partitions)
	}
	for name, ff := range o.Fillfactor {
		if _, ok := tableByName(name); !ok {
			return fmt.Errorf("fillfactor for unknown table %q (tables: %s)", name, strings.Join(TableNames(), ", "))
		}
		if ff < 10 || ff > 100 {
			return fmt.Errorf("fillfactor for %s must be between 10 and 100, got %d", name, ff)
		}
	}
	return nil
}

func (t tableDef) partitioned(o SchemaOptions) bool {
	return o.Partitions > 1 && t.warehouseColumn != ""
}

// partitionNames returns the relations that hold t's rows: the partitions, or
// t itself.
func (t tableDef) partitionNames(o SchemaOptions) []string {
	if !t.partitioned(o) {
		return []string{t.name}
	}
	names := make([]string, o.Partitions)
	for i := range names {
		names[i] = fmt.Sprintf("%s_p%d", t.name, i)
	}
	return names
}

func (t tableDef) columnNames() []string {
	names := make([]string, len(t.columns))
	for i, c := range t.columns {
		names[i] = c.name
	}
	return names
}

// createSQL returns the statements that create t without any index or
// constraint: the parent and, when partitioned, its partitions.
func (t tableDef) createSQL(o SchemaOptions) []string {
	cols := make([]string, len(t.columns))
	for i, c := range t.columns {
		cols[i] = c.name + " " + c.typ
	}
	with := ""
	if ff, ok := o.Fillfactor[t.name]; ok {
		with = fmt.Sprintf(" WITH (fillfactor = %d)", ff)
	}
	create := "CREATE TABLE " + t.name + " (\n\t" + strings.Join(cols, ",\n\t") + "\n)"
	if !t.partitioned(o) {
		return []string{create + with}
	}
	stmts := []string{create + " PARTITION BY HASH (" + t.warehouseColumn + ")"}
	for i, p := range t.partitionNames(o) {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)%s",
			p, t.name, o.Partitions, i, with))
	}
	return stmts
}

// indexBuild is one unit of index work after the data is in: built in
// parallel with other builds. attach statements run afterwards, one at a time,
// because they take an exclusive lock on the table.
type indexBuild struct {
	table string // for progress and ordering
	rel   string // the relation it reads: the table, or one of its partitions
	sql   string
	cost  int // relative size, to start the biggest builds first
}

// indexPlan returns the index builds (parallel) and the constraint statements
// that turn them into primary keys (serial, quick: they reuse the built indexes).
func indexPlan(o SchemaOptions) (builds []indexBuild, attach []string) {
	for _, t := range tpccTables {
		cost := tableCost[t.name]
		parts := t.partitionNames(o)
		if len(t.primaryKey) > 0 {
			pk := strings.Join(t.primaryKey, ", ")
			for _, p := range parts {
				builds = append(builds, indexBuild{t.name, p, fmt.Sprintf("CREATE UNIQUE INDEX %s_pkey ON %s (%s)", p, p, pk), cost / len(parts)})
			}
			for _, p := range parts {
				attach = append(attach, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s_pkey PRIMARY KEY USING INDEX %s_pkey", p, p, p))
			}
			if t.partitioned(o) {
				// The parent's primary key adopts each partition's primary key
				// instead of building again (a plain unique index would not do).
				attach = append(attach, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s_pkey PRIMARY KEY (%s)", t.name, t.name, pk))
			}
		}
		for _, ix := range t.indexes {
			cols := strings.Join(ix.columns, ", ")
			if !t.partitioned(o) {
				builds = append(builds, indexBuild{t.name, t.name, fmt.Sprintf("CREATE INDEX %s ON %s (%s)", ix.name, t.name, cols), cost})
				continue
			}
			for _, p := range parts {
				builds = append(builds, indexBuild{t.name, p, fmt.Sprintf("CREATE INDEX %s_%s ON %s (%s)", p, strings.TrimPrefix(ix.name, t.name+"_"), p, cols), cost / len(parts)})
			}
			attach = append(attach, fmt.Sprintf("CREATE INDEX %s ON %s (%s)", ix.name, t.name, cols))
		}
	}
	if o.ForeignKeys {
		for _, t := range tpccTables {
			for i, fk := range t.foreignKeys {
				ref, _ := tableByName(fk.refs)
				attach = append(attach, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s_fkey%d FOREIGN KEY (%s) REFERENCES %s (%s)",
					t.name, t.name, i+1, strings.Join(fk.columns, ", "), ref.name, strings.Join(ref.primaryKey, ", ")))
			}
		}
	}
	return builds, attach
}

// tableCost is the rough relative size of each table per warehouse (MB), used
// to start the longest index builds first.
var tableCost = map[string]int{
	"order_line": 300, "stock": 300, "customer": 200, "orders": 30,
	"history": 20, "new_order": 9, "item": 10, "district": 1, "warehouse": 1,
}

// dropSQL drops every TPC-C table and the meta row's table of the current schema.
func dropSQL() string {
	names := append(TableNames(), metaTable, loadDoneTable)
	return "DROP TABLE IF EXISTS " + strings.Join(names, ", ") + " CASCADE"
}

// createSchemaSQL creates the target schema if needed (identifier quoted).
func createSchemaSQL(schema string) string {
	return "CREATE SCHEMA IF NOT EXISTS " + pgx.Identifier{schema}.Sanitize()
}
