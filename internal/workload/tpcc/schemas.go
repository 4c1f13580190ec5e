package tpcc

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/field"
)

// Several schemas in one server (seed 002's layout: one server, four TPC-C
// databases, one driver each): 'tpcc load --schemas', 'tpcc run --schemas'
// and 'tpcc check --schemas' take a list of schemas, each an independent
// TPC-C database with its own pgoltp_meta. A count N stands for the schemas
// SchemaPrefix1..SchemaPrefixN.

// SchemaPrefix names the schemas of '--schemas N': tpcc1, tpcc2, ... tpccN.
const SchemaPrefix = "tpcc"

// maxSchemas bounds '--schemas N': each schema costs its own connections.
const maxSchemas = 1000

// DefaultSchemas returns the names '--schemas n' stands for: tpcc1..tpccN.
func DefaultSchemas(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = SchemaPrefix + strconv.Itoa(i+1)
	}
	return out
}

// ParseSchemas reads a list of schemas as given: a count N (the schemas tpcc1..tpccN) or a
// comma-separated list of schema names, each named once.
func ParseSchemas(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > maxSchemas {
			return nil, field.New("Schemas", s, "{} %d: use a count from 1 to %d (schemas %s1..%sN) or a list of names a,b,c", n, maxSchemas, SchemaPrefix, SchemaPrefix)
		}
		return DefaultSchemas(n), nil
	}
	names := strings.Split(s, ",")
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
	}
	return names, validSchemas(names)
}

// maxIdentifier is the longest name PostgreSQL keeps (NAMEDATALEN-1 bytes).
const maxIdentifier = 63

// validSchemas refuses an empty name, one PostgreSQL would truncate, and a
// name given twice: two drivers on one schema would not be two TPC-C
// databases.
func validSchemas(names []string) error {
	for i, n := range names {
		if n == "" {
			return field.New("Schemas", names, "{} %q has an empty name: use a count N or names a,b,c", strings.Join(names, ","))
		}
		if len(n) > maxIdentifier || strings.ContainsRune(n, 0) {
			// PostgreSQL truncates longer names: two could become one schema.
			return field.New("Schemas", names, "{}: %q is not a schema name PostgreSQL keeps whole (at most %d bytes, no NUL)", n, maxIdentifier)
		}
		if slices.Contains(names[:i], n) {
			return field.New("Schemas", names, "{} names schema %q twice: each schema is one TPC-C database", n)
		}
	}
	return nil
}

// SchemasText is names as ParseSchemas reads them back, shortest: the count
// when they are the default ones.
func SchemasText(names []string) string {
	if slices.Equal(names, DefaultSchemas(len(names))) {
		return strconv.Itoa(len(names))
	}
	return strings.Join(names, ",")
}

// SchemaError says which of several schemas an error is about; it wraps the
// error (errors.Is sees ErrNotLoaded, ErrBadOption, ... through it).
type SchemaError struct {
	Schema  string   // the schema the error is about
	Schemas []string // all the schemas of the command
	Err     error
}

func (e *SchemaError) Error() string {
	msg := e.Err.Error()
	if strings.Contains(msg, "schema "+e.Schema) {
		return msg // it says which already
	}
	return "schema " + e.Schema + ": " + msg
}

func (e *SchemaError) Unwrap() error { return e.Err }

// inSchema wraps err, if any, as being about schema (one of schemas).
func inSchema(err error, schema string, schemas []string) error {
	if err == nil {
		return nil
	}
	var se *SchemaError
	if errors.As(err, &se) {
		return err
	}
	return &SchemaError{Schema: schema, Schemas: schemas, Err: err}
}

// schemaFigure names a per-schema figure or check: "tpmC[tpcc2]".
func schemaFigure(name, schema string) string { return name + "[" + schema + "]" }

// bothSchemas refuses one schema and a list of them together.
func bothSchemas(schema string) error {
	return field.New("Schema", schema, "{} %s and {Schemas} together: pass one of them", schema)
}
