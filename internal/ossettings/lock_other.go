//go:build !unix

package ossettings

import (
	"errors"
	"os"
)

// lockMachine: OS settings are changed on Linux only.
func lockMachine() (*os.File, error) {
	return nil, errors.New("OS settings are changed on Linux only")
}

func lastLab(f *os.File) string { return "" }

func setLastLab(f *os.File, lab string) error { return nil }

// LastLab: OS settings are changed on Linux only.
func LastLab() string { return "" }
