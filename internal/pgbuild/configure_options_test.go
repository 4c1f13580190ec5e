package pgbuild

import (
	"slices"
	"testing"
)

// An excerpt of PostgreSQL 17's `configure --help`, as autoconf writes it.
const configureHelp = `Optional Features:
  --disable-option-checking  ignore unrecognized --enable/--with options
  --disable-FEATURE       do not include FEATURE (same as --enable-FEATURE=no)
  --enable-FEATURE[=ARG]  include FEATURE [ARG=yes]
  --disable-rpath         do not embed shared library search path in
                          executables
  --enable-debug          build with debugging symbols (-g)
  --enable-tap-tests      enable TAP tests (requires Perl and IPC::Run)
  --enable-injection-points
                          enable injection points (for testing)

Optional Packages:
  --with-PACKAGE[=ARG]    use PACKAGE [ARG=yes]
  --without-PACKAGE       do not use PACKAGE (same as --with-PACKAGE=no)
  --with-pgport=PORTNUM   set default port number [5432]
  --with-llvm             build with LLVM based JIT support
  --without-icu           build without ICU support
  --with-ssl=LIB          use LIB for SSL/TLS support (openssl)
  --with-lz4              build with LZ4 support
`

func TestUnknownOptions(t *testing.T) {
	for _, c := range []struct {
		opts    []string
		unknown []string
	}{
		{[]string{"--enable-debug", "--with-llvm", "--with-lz4"}, nil},
		// either form of a feature, and configure's own spelling of its name
		{[]string{"--enable-rpath", "--disable-debug", "--with-icu", "--without-lz4", "--enable-tap_tests"}, nil},
		{[]string{"--with-ssl=openssl", "--with-pgport=5433", "--with-ssl=bogus"}, nil}, // values are configure's to judge
		{[]string{"--prefix=/x", "CFLAGS=-O2", "--host=x86_64"}, nil},                   // not feature options
		{[]string{"--with-nonsense-xyz", "--enable-debug", "--enable-nothing"}, []string{"--with-nonsense-xyz", "--enable-nothing"}},
		{[]string{"--with-FEATURE", "--enable-PACKAGE"}, []string{"--with-FEATURE", "--enable-PACKAGE"}}, // the placeholders are not options
	} {
		if got := unknownOptions(configureHelp, c.opts); !slices.Equal(got, c.unknown) {
			t.Errorf("unknownOptions(%q) = %q, want %q", c.opts, got, c.unknown)
		}
	}
}
