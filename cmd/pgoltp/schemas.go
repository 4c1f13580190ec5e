package main

import (
	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/workload/tpcc"
)

// addSchemasFlag adds --schemas to a tpcc command (tpcc.AddSchemasFlag) and
// resolves it against --schema (variable schema) before the command runs.
func addSchemasFlag(cmd *cobra.Command, schema *string, schemas *[]string, usage string) {
	tpcc.AddSchemasFlag(cmd.Flags(), schemas, usage)
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return tpcc.ResolveSchemas(cmd.Flags(), schema) }
}
