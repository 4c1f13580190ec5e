package pgbuild

import (
	"context"
	"os"
	"os/exec"
	"strings"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// debianPackages are what a build needs from Debian, beyond the source: an
// explicit minimal list rather than apt-get build-dep (which pulls in the
// documentation toolchain, LLVM, Kerberos, LDAP, ...): the compiler, make,
// dpkg-dev (apt-get source unpacks and patches with it) and the headers of
// the two libraries configure requires by default.
func debianPackages(cc string) []string {
	return []string{cc, "make", "dpkg-dev", "libreadline-dev", "zlib1g-dev"}
}

// ensurePackages installs the missing ones as root; any other user is told
// which to install.
func ensurePackages(ctx context.Context, cc string, progress func(string, ...any)) error {
	var missing []string
	for _, p := range debianPackages(cc) {
		out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Status}", p).Output()
		if err != nil || !strings.Contains(string(out), "install ok installed") {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	install := "apt-get install -y --no-install-recommends " + strings.Join(missing, " ")
	if os.Geteuid() != 0 {
		return problem.BadInput("install them as root: "+install, "a build needs Debian packages that are missing: %s", strings.Join(missing, ", "))
	}
	progress("== installing %s (Debian)", strings.Join(missing, " "))
	cmd := exec.CommandContext(ctx, "apt-get", append([]string{"install", "-y", "-qq", "--no-install-recommends"}, missing...)...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return problem.BadInput("run it by hand to see why: "+install, "installing %s failed: %s", strings.Join(missing, ", "), lastLine(out))
	}
	return nil
}

// lastLine is the last non-empty line of a command's output.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
