//go:build unix

package tune

import (
	"golang.org/x/sys/unix"

	"github.com/pgoltp/pgoltp/internal/ossettings"
)

// blockDevice finds the disk holding path (ossettings.BlockDevice: the
// disk an experiment's block.* keys change).
func blockDevice(path string) (name, queue string, err error) { return ossettings.BlockDevice(path) }

// deviceOf is the device number of the filesystem holding path.
func deviceOf(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, err
	}
	return uint64(st.Dev), nil
}
