//go:build !unix

package host

import "errors"

// BlockDevice: disks are looked up through /sys, on Linux only.
func BlockDevice(path string) (name, queue string, err error) {
	return "", "", errors.New("storage detection reads /sys: Linux only")
}

// deviceOf: filesystems are compared on Unix only.
func deviceOf(path string) (uint64, error) {
	return 0, errors.New("the flush probe runs on Unix only")
}
