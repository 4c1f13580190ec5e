package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A download in flight keeps its jar and its unpacked tree in the cache under
// names that say which process made them (".partial-PID-..."), so that the
// next download can remove what a killed one left behind, and nothing else:
// an entry is removed only when its name is of that form and its process is
// gone. Entries of a download still running (another pgoltp) stay.
const partialPrefix = ".partial-"

// partialPattern is the os.CreateTemp/MkdirTemp pattern of this process's
// in-flight entries of the given kind ("jar", "unpack", "aside").
func partialPattern(kind string) string {
	return fmt.Sprintf("%s%d-%s-*", partialPrefix, os.Getpid(), kind)
}

// sweepPartials removes the in-flight entries of downloads whose process no
// longer runs, and returns the paths it removed.
func sweepPartials(cacheDir string) []string {
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
