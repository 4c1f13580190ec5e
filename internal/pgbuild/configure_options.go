package pgbuild

import (
	"fmt"
	"regexp"
	"strings"
)

// configure only warns, at its end, of --enable/--disable/--with/--without
// options it does not know: a minute of checks later on a small machine.
// unknownOptions finds them first, in what `configure --help` lists.

// featureOption matches the options configure --help lists, with their
// feature's name (lowercase: FEATURE and PACKAGE are placeholders).
var featureOption = regexp.MustCompile(`--(?:enable|disable|with|without)-([a-z0-9](?:[a-z0-9_+.-]*[a-z0-9])?)`)

// featureSpelling is a feature's name as configure compares it: its sed
// turns -, + and . into _.
var featureSpelling = strings.NewReplacer("-", "_", "+", "_", ".", "_")

// feature is an option's feature name as configure compares it, and
// whether the option names one.
func feature(option string) (string, bool) {
	name, ok := strings.CutPrefix(option, "--")
	if !ok {
		return "", false
	}
	name, _, _ = strings.Cut(name, "=")
	for _, p := range []string{"enable-", "disable-", "with-", "without-"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			return featureSpelling.Replace(rest), true
		}
	}
	return "", false
}

// unknownOptions are the feature options of opts that help (configure
// --help's text) does not list. Either form of a feature counts for both
// (--enable-x for --disable-x; --with-x for --without-x), as configure takes
// them.
func unknownOptions(help string, opts []string) []string {
	known := map[string]bool{}
	for _, m := range featureOption.FindAllStringSubmatch(help, -1) {
		known[featureSpelling.Replace(m[1])] = true
	}
	var unknown []string
	for _, o := range opts {
		if f, ok := feature(o); ok && !known[f] {
			unknown = append(unknown, o)
		}
	}
	return unknown
}

// knownOptions refuses the feature options configure --help does not list,
// before configure runs; what it lists is left to configure to judge.
func (r run) knownOptions(configure string, opts []string) error {
	help, err := r.command(configure, "--help").Output()
	if err != nil {
		return fmt.Errorf("configure --help failed (%v)", err)
	}
	if unknown := unknownOptions(string(help), opts); len(unknown) > 0 {
		fmt.Fprintf(r.log, "\n== configure --help does not list %s\n", strings.Join(unknown, " "))
		return fmt.Errorf("configure failed: it does not know %s (see configure --help)", strings.Join(unknown, " "))
	}
	return nil
}
