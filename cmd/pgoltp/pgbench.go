package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/pgbench"
)

// pgbench is a drop-in pgbench: its command line, messages and exit codes are
// pgbench's (1 for bad options, not pgoltp's 2), so cobra only routes to it
// and leaves the arguments alone.
func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:                "pgbench [pgbench options] [dbname]",
		Short:              "pgbench, drop-in: the same options, output and exit codes (pgoltp pgbench --help)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := pgbench.Main(cmd.Context(), args, pgbench.OSEnv()); code != 0 {
				os.Exit(code)
			}
			return nil
		},
	})
}
