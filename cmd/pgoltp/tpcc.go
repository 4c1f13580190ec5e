package main

import (
	"github.com/spf13/cobra"
)

// tpccCmd groups the TPC-C commands: load and check live here, run is added
// by the driver's own file.
var tpccCmd = &cobra.Command{
	Use:   "tpcc",
	Short: "TPC-C: load the schema and data, run the workload, check consistency",
	Long: `TPC-C (standard revision 5.11): the nine spec tables with spec column names,
a fast parallel COPY loader, the five transactions, and the consistency
conditions of clause 3.3.2.`,
}

func init() {
	rootCmd.AddCommand(tpccCmd)
}
