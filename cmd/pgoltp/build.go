package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/pgbuild"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// buildFlags are the flags of 'pgoltp build'.
type buildFlags struct {
	name, cc, cflags, configure string
	list                        bool
}

func init() {
	var f buildFlags
	cmd := &cobra.Command{
		Use:   "build --name NAME [--cc gcc|clang] [--cflags \"...\"] [--configure \"...\"]",
		Short: "Compile PostgreSQL 15 from Debian's source into the cache, for 'cluster up --build' and plans' builds:",
		Long: `Compile PostgreSQL 15 from this machine's Debian source package (apt-get
source postgresql-15; the compiler and headers from Debian) with the given
compiler, CFLAGS and configure options, with contrib's pg_stat_statements,
pgstattuple and pg_prewarm, into the PostgreSQL cache under builds/NAME, with
a record of how it was built and the SHA-256 of every file (checked each time
a cluster uses it). As root it compiles as the user postgres. A name already
built with the same options is reused; with other options it is refused.
It takes minutes: run it under nice on a shared machine.

  pgoltp build --name o3-native --cflags "-O3 -march=native"
  pgoltp cluster up --build o3-native --lab ./o3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.list {
				return listBuilds(cmd.OutOrStdout())
			}
			return runBuild(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "", "the build's name (what 'cluster up --build' and a plan's builds: name)")
	fl.StringVar(&f.cc, "cc", "gcc", "the compiler: gcc or clang (Debian's)")
	fl.StringVar(&f.cflags, "cflags", "", `CFLAGS, e.g. "-O3 -march=native" (default: configure's, -O2)`)
	fl.StringVar(&f.configure, "configure", "", `more configure options, e.g. "--with-lz4" (pgoltp sets --prefix)`)
	fl.BoolVar(&f.list, "list", false, "list the builds in the cache")
	rootCmd.AddCommand(cmd)
}

func runBuild(cmd *cobra.Command, f buildFlags) error {
	o := pgbuild.Options{Name: f.name, CC: f.cc, CFLAGS: strings.TrimSpace(f.cflags), Configure: strings.Fields(f.configure), Cache: cluster.CacheDir()}
	if err := o.Validate(); err != nil {
		return namedFlags(err, nil)
	}
	b, reused, err := pgbuild.Build(cmd.Context(), o, os.Stderr)
	if err != nil {
		return err
	}
	if reused {
		fmt.Fprintf(os.Stderr, "pgoltp: the build %s exists with these options: reused\n", b.Name)
	}
	return emit(cmd.OutOrStdout(), b, func(w io.Writer) error { return writeBuilds(w, []cluster.Build{b}) })
}

func listBuilds(w io.Writer) error {
	cache := cluster.CacheDir()
	if err := cluster.CheckCache(cache); err != nil {
		return err
	}
	builds, err := cluster.ListBuilds(cache)
	if err != nil {
		return problem.Wrap(err, "check the cache directory (PGOLTP_CACHE)", "cannot list the builds in %s", cluster.BuildsDir(cache))
	}
	return emit(w, builds, func(w io.Writer) error {
		if len(builds) == 0 {
			_, err := fmt.Fprintf(w, "no builds in %s; make one with 'pgoltp build --name NAME'\n", cluster.BuildsDir(cache))
			return err
		}
		return writeBuilds(w, builds)
	})
}

// writeBuilds is a table of builds: name, version, compiler, CFLAGS,
// configure options, source.
func writeBuilds(w io.Writer, builds []cluster.Build) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPOSTGRES\tCOMPILER\tCFLAGS\tCONFIGURE\tSOURCE")
	for _, b := range builds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", b.Name, b.Version, b.CCVersion, orDash(b.CFLAGS), orDash(strings.Join(b.Configure, " ")), b.Source)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
