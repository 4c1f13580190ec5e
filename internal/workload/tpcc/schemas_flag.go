package tpcc

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// --schemas: several TPC-C schemas in one server, each its own database
// (ParseSchemas). Usage per command:
const (
	SchemasLoadUsage  = "load several independent TPC-C databases, one per schema: a count N (schemas tpcc1..tpccN) or names a,b,c; each gets --warehouses (and with --seed the same data), and they load in parallel sharing --workers"
	SchemasRunUsage   = "drive several schemas at once: a count N (tpcc1..tpccN) or names a,b,c; each schema gets its own terminals, --conns connections and delivery workers (every count flag is per schema), its own audits and result line, and the result merges them"
	SchemasCheckUsage = "check several schemas, each on its own: a count N (tpcc1..tpccN) or names a,b,c"
)

// AddSchemasFlag adds --schemas to a tpcc command's flags; the names go to
// *schemas. Call ResolveSchemas once the flags are parsed.
func AddSchemasFlag(f *pflag.FlagSet, schemas *[]string, usage string) {
	f.Var(&schemasValue{names: schemas}, "schemas", usage)
}

// ResolveSchemas makes --schema (whose variable is schema) and --schemas
// together one line of bad input; with --schemas alone, *schema is cleared.
func ResolveSchemas(f *pflag.FlagSet, schema *string) error {
	if !f.Changed("schemas") {
		return nil
	}
	if f.Changed("schema") {
		return problem.BadInput("pass --schema NAME for one schema, or --schemas N (or a,b,c) for several",
			"--schema and --schemas together")
	}
	*schema = ""
	return nil
}

// schemasValue parses --schemas as it is given, so a bad value is a flag
// error (one line, exit code 2).
type schemasValue struct{ names *[]string }

func (v *schemasValue) String() string {
	if v.names == nil {
		return ""
	}
	return strings.Join(*v.names, ",")
}

func (v *schemasValue) Set(s string) error {
	names, err := ParseSchemas(s)
	if err != nil {
		return err
	}
	*v.names = names
	return nil
}

func (v *schemasValue) Type() string { return "N|a,b,c" }
