package pgbuild

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// The source is Debian's postgresql-15 of the version installed (or, with
// none installed, the candidate): apt-get source, with its patches, kept
// unpacked in CACHE/src and only read by builds (each builds out of tree).

// sourcePackage is the Debian source package of Major.
var sourcePackage = fmt.Sprintf("postgresql-%d", Major)

// debianVersion is the version of postgresql-15 to build: the installed
// one, else apt's candidate.
func debianVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Version}", sourcePackage).Output()
	if err == nil && len(out) > 0 {
		return string(out), nil
	}
	out, err = exec.CommandContext(ctx, "apt-cache", "policy", sourcePackage).Output()
	if err == nil {
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Candidate: "); ok && v != "(none)" {
				return v, nil
			}
		}
	}
	return "", problem.BadInput("build on Debian 12 (or a Debian with "+sourcePackage+")", "apt knows no %s on this machine", sourcePackage)
}

// source returns the unpacked source tree of version, fetching it once.
func source(ctx context.Context, cache, version string, progress func(string, ...any)) (string, error) {
	upstream, _, _ := strings.Cut(version, "-")
	dir := filepath.Join(cache, "src", sourcePackage+"-"+upstream)
	if _, err := os.Stat(filepath.Join(dir, "configure")); err == nil {
		return dir, nil
	}
	if err := ensureDebSrc(ctx, progress); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	cluster.SweepPartials(filepath.Dir(dir))
	fetch, err := os.MkdirTemp(filepath.Dir(dir), cluster.PartialPattern("fetch"))
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(fetch)
	if err := os.Chmod(fetch, 0o755); err != nil {
		return "", err
	}
	progress("== apt-get source %s=%s (into %s)", sourcePackage, version, filepath.Dir(dir))
	cmd := exec.CommandContext(ctx, "apt-get", "source", "-qq", sourcePackage+"="+version)
	cmd.Dir = fetch
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", problem.BadInput("check that a deb-src entry for Debian is configured and the network reaches it",
			"apt-get source %s=%s failed: %s", sourcePackage, version, lastLine(out))
	}
	return dir, os.Rename(filepath.Join(fetch, filepath.Base(dir)), dir)
}

// ensureDebSrc adds Debian's deb-src entry, as scripts/pgbench-tap does: in
// a file of its own, derived from the machine's debian.sources, never by
// editing the machine's own.
func ensureDebSrc(ctx context.Context, progress func(string, ...any)) error {
	if hasDebSrc() {
		return nil
	}
	const src, added = "/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list.d/debian-src.sources"
	b, err := os.ReadFile(src)
	if err != nil {
		return problem.BadInput("add a deb-src line for Debian to apt's sources", "no deb-src entry and no %s to derive one from", src)
	}
	if os.Geteuid() != 0 {
		return problem.BadInput("run 'pgoltp build' once as root, or add a deb-src entry for Debian", "apt has no deb-src entry to fetch %s's source from", sourcePackage)
	}
	progress("== adding deb-src (%s)", added)
	text := strings.ReplaceAll(string(b), "Types: deb\n", "Types: deb-src\n")
	if err := os.WriteFile(added, []byte(text), 0o644); err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, "apt-get", "update", "-qq").CombinedOutput(); err != nil {
		return problem.BadInput("run apt-get update by hand to see why", "apt-get update failed: %s", lastLine(out))
	}
	return nil
}

func hasDebSrc() bool {
	lists, _ := filepath.Glob("/etc/apt/sources.list.d/*")
	for _, f := range append(lists, "/etc/apt/sources.list") {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) || err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "deb-src ") || (strings.HasPrefix(line, "Types:") && strings.Contains(line, "deb-src")) {
				return true
			}
		}
	}
	return false
}
