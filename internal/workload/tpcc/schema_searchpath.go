package tpcc

import (
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/connstr"
)

// DefaultSchema is where the tables go unless the user names another schema.
const DefaultSchema = "public"

// WithSearchPath returns dsn with search_path set to schema, so that every
// connection made from it (loader, checker, driver) finds the unqualified
// TPC-C table names in that schema. An empty schema or "public" returns dsn
// unchanged. Works for URL and key=value DSNs; the password is kept as is.
func WithSearchPath(dsn, schema string) (string, error) {
	if _, err := pgx.ParseConfig(dsn); err != nil {
		return "", fmt.Errorf("parsing the DSN: %w", err)
	}
	if schema == "" || schema == DefaultSchema {
		return dsn, nil
	}
	// search_path is a list of identifiers: quote it so any schema name works.
	return connstr.With(dsn, "search_path", pgx.Identifier{schema}.Sanitize())
}

// ConnConfig parses dsn and sets search_path to schema on the result.
func ConnConfig(dsn, schema string) (*pgx.ConnConfig, error) {
	withPath, err := WithSearchPath(dsn, schema)
	if err != nil {
		return nil, err
	}
	return pgx.ParseConfig(withPath)
}
