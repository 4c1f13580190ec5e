package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// --schemas: several TPC-C schemas in one server, each its own database
// (tpcc.ParseSchemas). Usage per command:
const (
	schemasLoadUsage  = "load several independent TPC-C databases, one per schema: a count N (schemas tpcc1..tpccN) or names a,b,c; each gets --warehouses (and with --seed the same data), and they load in parallel sharing --workers"
	schemasRunUsage   = "drive several schemas at once: a count N (tpcc1..tpccN) or names a,b,c; each schema gets its own terminals, --conns connections and delivery workers (every count flag is per schema), its own audits and result line, and the result merges them"
	schemasCheckUsage = "check several schemas, each on its own: a count N (tpcc1..tpccN) or names a,b,c"
)

// addSchemasFlag adds --schemas to a tpcc command and resolves it against
// --schema (variable schema) before the command runs.
func addSchemasFlag(cmd *cobra.Command, schema *string, schemas *[]string, usage string) {
	cmd.Flags().Var(&schemasValue{names: schemas}, "schemas", usage)
	addPreRun(cmd, func(cmd *cobra.Command, _ []string) error { return resolveSchemas(cmd.Flags(), schema) })
}

// resolveSchemas makes --schema (whose variable is schema) and --schemas
// together one line of bad input; with --schemas alone, *schema is cleared.
func resolveSchemas(f *pflag.FlagSet, schema *string) error {
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
	names, err := tpcc.ParseSchemas(s)
	if err != nil {
		return asFlags(err, nil)
	}
	*v.names = names
	return nil
}

func (v *schemasValue) Type() string { return "N|a,b,c" }
