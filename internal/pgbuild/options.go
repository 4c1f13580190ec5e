package pgbuild

import (
	"slices"
	"strings"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/field"
)

// Major is the PostgreSQL major pgoltp builds: the one Debian 12 packages.
const Major = 15

// Compilers are the compilers a build takes, each from Debian.
var Compilers = []string{"gcc", "clang"}

// Options are one build as asked for.
type Options struct {
	Name      string
	CC        string   // one of Compilers
	CFLAGS    string   // "" = configure's default (-O2)
	Configure []string // configure options beyond --prefix
	Cache     string   // the PostgreSQL cache (cluster.CacheDir)
}

// Validate refuses a bad name or compiler before anything runs. Its errors
// are field errors (field.Error).
func (o *Options) Validate() error {
	if o.Name == "" {
		return field.New("Name", o.Name, "{} is required: name the build, e.g. {} o3-native")
	}
	if err := cluster.ValidBuildName(o.Name); err != nil {
		return field.New("Name", o.Name, "{}: %v", err)
	}
	if !slices.Contains(Compilers, o.CC) {
		return field.New("CC", o.CC, "{} %q: use %s (Debian's)", o.CC, strings.Join(Compilers, " or "))
	}
	for _, opt := range o.Configure {
		if strings.HasPrefix(opt, "--prefix") || strings.HasPrefix(opt, "CC=") || strings.HasPrefix(opt, "CFLAGS=") {
			return field.New("Configure", opt, "{} %s: pgoltp sets the prefix, and the compiler and flags come from --cc and --cflags", opt)
		}
	}
	return nil
}

// sameAs reports whether an existing build was made with these options.
func (o *Options) sameAs(b cluster.Build) bool {
	return b.CC == o.CC && b.CFLAGS == o.CFLAGS && slices.Equal(b.Configure, o.Configure)
}
