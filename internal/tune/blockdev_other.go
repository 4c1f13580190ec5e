//go:build !unix

package tune

import "errors"

// blockDevice: disks are looked up through /sys, on Linux only.
func blockDevice(path string) (name, queue string, err error) {
	return "", "", errors.New("storage detection reads /sys: Linux only")
}
