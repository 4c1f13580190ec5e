package tpcc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// metaTable records what the loader built, in the same schema as the TPC-C
// tables: the scale, the NURand C_LOAD constants a run needs to choose a valid
// C_RUN (clause 2.1.6.1), the seed, and whether the load finished. complete is
// set only in the very last step of a load, so a database whose meta row says
// complete = false (or has none) is a half-load that the next load rebuilds.
const metaTable = "pgoltp_meta"

const metaDDL = `CREATE TABLE IF NOT EXISTS pgoltp_meta (
	id            integer PRIMARY KEY CHECK (id = 1),
	warehouses    integer NOT NULL,
	c_last_load   integer NOT NULL,
	c_id_load     integer NOT NULL,
	ol_i_id_load  integer NOT NULL,
	seed          bigint NOT NULL,
	partitions    integer NOT NULL,
	foreign_keys  boolean NOT NULL,
	loaded_at     timestamptz NOT NULL,
	load_seconds  double precision NOT NULL DEFAULT 0,
	complete      boolean NOT NULL DEFAULT false
)`

// Meta is the row of pgoltp_meta: how the database was loaded.
type Meta struct {
	Warehouses  int
	Load        Constants // C_LOAD for C_LAST, C_ID, OL_I_ID
	Seed        uint64
	LoadedAt    time.Time // the load time, also c_since/h_date/o_entry_d of the initial rows
	Complete    bool      // false: the load was interrupted; rerun the load
	Partitions  int       // hash partitions of the big tables by warehouse; 0 = none
	ForeignKeys bool
	LoadSeconds float64 // wall time of the load that completed
}

// ErrNotLoaded says the schema holds no pgoltp TPC-C load at all.
var ErrNotLoaded = errors.New("no TPC-C load found")

// ReadMeta reads pgoltp_meta through q (a *pgx.Conn, *pgxpool.Pool or pgx.Tx), whose search_path must reach the TPC-C
// schema (see WithSearchPath). It returns ErrNotLoaded when there is no such
// table or row; callers must still look at Meta.Complete.
func ReadMeta(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (Meta, error) {
	var m Meta
	var seed int64
	err := q.QueryRow(ctx, `SELECT warehouses, c_last_load, c_id_load, ol_i_id_load, seed,
		partitions, foreign_keys, loaded_at, load_seconds, complete FROM pgoltp_meta WHERE id = 1`).
		Scan(&m.Warehouses, &m.Load.CLast, &m.Load.CID, &m.Load.OLIID, &seed,
			&m.Partitions, &m.ForeignKeys, &m.LoadedAt, &m.LoadSeconds, &m.Complete)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "42P01": // undefined_table
		return Meta{}, ErrNotLoaded
	case errors.Is(err, pgx.ErrNoRows):
		return Meta{}, ErrNotLoaded
	case err != nil:
		return Meta{}, fmt.Errorf("reading %s: %w", metaTable, err)
	}
	m.Seed = uint64(seed)
	return m, nil
}

// execer is what writing the meta row needs.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// writeMeta replaces the meta row with m (complete as given).
func writeMeta(ctx context.Context, db execer, m Meta) error {
	if _, err := db.Exec(ctx, metaDDL); err != nil {
		return fmt.Errorf("creating %s: %w", metaTable, err)
	}
	_, err := db.Exec(ctx, `INSERT INTO pgoltp_meta (id, warehouses, c_last_load, c_id_load, ol_i_id_load,
		seed, partitions, foreign_keys, loaded_at, load_seconds, complete)
		VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (id) DO UPDATE SET warehouses = EXCLUDED.warehouses, c_last_load = EXCLUDED.c_last_load,
		c_id_load = EXCLUDED.c_id_load, ol_i_id_load = EXCLUDED.ol_i_id_load, seed = EXCLUDED.seed,
		partitions = EXCLUDED.partitions, foreign_keys = EXCLUDED.foreign_keys, loaded_at = EXCLUDED.loaded_at,
		load_seconds = EXCLUDED.load_seconds, complete = EXCLUDED.complete`,
		m.Warehouses, m.Load.CLast, m.Load.CID, m.Load.OLIID, int64(m.Seed),
		m.Partitions, m.ForeignKeys, m.LoadedAt, m.LoadSeconds, m.Complete)
	if err != nil {
		return fmt.Errorf("writing %s: %w", metaTable, err)
	}
	return nil
}
