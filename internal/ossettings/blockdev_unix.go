//go:build unix

package ossettings

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// BlockDevice finds the disk holding path: its name (the whole disk, not the
// partition) and its queue directory in /sys. doctor reads the same disk.
func BlockDevice(path string) (name, queue string, err error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", "", err
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))) // Dev is int32 on macOS
	sys, err := filepath.EvalSymlinks(filepath.Join("/sys/dev/block", dev))
	if err != nil {
		return "", "", fmt.Errorf("no block device %s (e.g. overlay or tmpfs)", dev)
	}
	name = filepath.Base(sys)
	queue = filepath.Join(sys, "queue")
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		// A partition's queue/ lives in its parent disk.
		name = filepath.Base(filepath.Dir(sys))
		queue = filepath.Join(filepath.Dir(sys), "queue")
	}
	return name, queue, nil
}
