package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for --results-dsn
	_ "modernc.org/sqlite"             // database/sql driver "sqlite" for results.db
)

// FileName is the results file in a lab directory.
const FileName = "results.db"

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// Store is an open results store.
type Store struct {
	db       *sql.DB
	postgres bool   // placeholders are $n instead of ?
	where    string // for messages: the file path, or "the results database"
}

// Open opens the results store: the PostgreSQL database named by resultsDSN
// when it is set, else labDir/results.db (created with the lab directory if
// missing). The schema is created if needed.
func Open(ctx context.Context, labDir, resultsDSN string) (*Store, error) {
	var s *Store
	if resultsDSN != "" {
		db, err := sql.Open("pgx", resultsDSN)
		if err != nil {
			return nil, fmt.Errorf("results database: %w", err)
		}
		s = &Store{db: db, postgres: true, where: "the results database"}
	} else {
		if err := runfile.EnsureLab(labDir); err != nil {
			return nil, err
		}
		path := filepath.Join(labDir, FileName)
		if err := createPrivate(path); err != nil {
			return nil, err
		}
		// WAL lets `pgoltp runs` read while a run writes; busy_timeout makes a
		// second writer wait instead of failing.
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		if err != nil {
			return nil, fmt.Errorf("results store %s: %w", path, err)
		}
		s = &Store{db: db, where: path}
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		if !s.postgres && corruptFile(err) {
			return nil, corrupt(s.where, err)
		}
		return nil, err
	}
	return s, nil
}

// Where names the store for messages (never with a password).
func (s *Store) Where() string { return s.where }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("opening %s: %w", s.where, err)
	}
	defer tx.Rollback()
	if s.postgres {
		// Two processes creating the schema at once would collide on the catalog.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7283460021)`); err != nil {
			return fmt.Errorf("opening %s: %w", s.where, err)
		}
	}
	for _, ddl := range append(schema[:len(schema):len(schema)], groupSchema...) {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("creating the results schema in %s: %w", s.where, err)
		}
	}
	var v string
	err = tx.QueryRowContext(ctx, s.bind(`SELECT value FROM pgoltp_meta WHERE key = ?`), "schema_version").Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO pgoltp_meta (key, value) VALUES (?, ?)`), "schema_version", strconv.Itoa(schemaVersion)); err != nil {
			return fmt.Errorf("creating the results schema in %s: %w", s.where, err)
		}
	case err != nil:
		return fmt.Errorf("reading %s: %w", s.where, err)
	default:
		if n, _ := strconv.Atoi(v); n > schemaVersion {
			return fmt.Errorf("%s was written by a newer pgoltp (schema %s, this one knows %d)", s.where, v, schemaVersion)
		}
	}
	return tx.Commit()
}

// bind rewrites ? placeholders to $1, $2... for PostgreSQL. Our statements
// never contain a literal question mark.
func (s *Store) bind(q string) string {
	if !s.postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// createPrivate makes sure the results file exists with mode 0600 before
// SQLite opens it: SQLite creates its -wal and -shm files with the mode of the
// main file, so the whole store stays readable by its owner only (it holds
// server settings and run data). An existing file is tightened too; anything
// there that is not a regular file (a directory, a symlink) is a corrupt store.
func createPrivate(path string) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return corrupt(path, fmt.Errorf("it is a %s, not a file", kindOf(fi.Mode())))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return problem.Wrap(err, "check --lab", "cannot open the results store %s", path)
	}
	defer f.Close()
	// Refuse a file that is not SQLite's before changing anything about it
	// (an empty one is a store SQLite has yet to fill).
	head := make([]byte, len(sqliteHeader))
	if n, _ := io.ReadFull(f, head); n > 0 && string(head[:n]) != sqliteHeader {
		return corrupt(path, errors.New("it is not an SQLite database"))
	}
	return f.Chmod(0o600)
}
