//go:build !unix

package ossettings

import "errors"

// BlockDevice: disks are looked up through /sys, on Linux only.
func BlockDevice(path string) (name, queue string, err error) {
	return "", "", errors.New("storage detection reads /sys: Linux only")
}
