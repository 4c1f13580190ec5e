package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A download (or a build of 'pgoltp build') in flight keeps its files in the
// cache under names that say which process made them (".partial-PID-..."),
// so that the next one can remove what a killed one left behind, and nothing
// else: an entry is removed only when its name is of that form and its
// process is gone. Entries of one still running (another pgoltp) stay.
const partialPrefix = ".partial-"

// PartialPattern is the os.CreateTemp/MkdirTemp pattern of this process's
// in-flight entries of the given kind ("jar", "unpack", "aside", "build").
func PartialPattern(kind string) string {
	return fmt.Sprintf("%s%d-%s-*", partialPrefix, os.Getpid(), kind)
}

// SweepPartials removes the in-flight entries (PartialPattern) in dir whose
// process no longer runs, and returns the paths it removed.
func SweepPartials(cacheDir string) []string {
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		pid, ok := partialOwner(e.Name())
		if !ok || pid == os.Getpid() || alive(pid) {
			continue
		}
		path := filepath.Join(cacheDir, e.Name())
		if os.RemoveAll(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}

// partialOwner returns the process id in a name made by partialPattern.
func partialOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, partialPrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}
