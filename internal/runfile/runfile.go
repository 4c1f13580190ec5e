// Package runfile creates the files that hold run data (experiment reports,
// HTML/CSV/JSON reports, exports): readable by their owner only (0600, they
// may describe the server and its settings), never following a symlink, and
// never replacing a file that is already there. It knows nothing about what
// the files contain.
package runfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Mode is the permission of every file with run data.
const Mode fs.FileMode = 0o600

// DirMode is the permission of directories pgoltp creates for run data: the
// lab may need to stay traversable for the server user; the files in it are not
// readable by others.
const DirMode fs.FileMode = 0o755

// CreateUnique creates a new file in dir named prefix+ext, or prefix-2+ext,
// prefix-3+ext, ... when that name is taken, exclusively (O_EXCL): two reports
// written in the same second never overwrite each other. The caller closes it.
func CreateUnique(dir, prefix, ext string) (*os.File, error) {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, err
	}
	for n := 1; n < 10000; n++ {
		name := prefix + ext
		if n > 1 {
			name = fmt.Sprintf("%s-%d%s", prefix, n, ext)
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, Mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: too many files named %s*%s", dir, prefix, ext)
}

// WriteUnique writes data to a new file made by CreateUnique and returns its path.
func WriteUnique(dir, prefix, ext string, data []byte) (string, error) {
	f, err := CreateUnique(dir, prefix, ext)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// WriteAtomically writes path through a temporary file in the same directory
// (mode 0600) renamed over it at the end, so a reader never sees half a file.
// It refuses to replace anything that is not a regular file (a symlink, a
// directory).
func WriteAtomically(path string, fill func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file", path)
	}
	tmp, err := os.CreateTemp(dir, "."+strings.TrimPrefix(filepath.Base(path), ".")+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if err := fill(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(Mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Create creates (or truncates) a file for run data with mode 0600, without
// following a symlink. An existing file keeps its mode, so it is tightened too.
func Create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, Mode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(Mode); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
