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
	"strconv"
	"strings"
	"syscall"
)

// Mode is the permission of every file with run data.
const Mode fs.FileMode = 0o600

// DirMode is the permission of directories pgoltp creates for run data: the
// lab may need to stay traversable for the server user; the files in it are not
// readable by others.
const DirMode fs.FileMode = 0o755

// CreateUnique creates a new file in dir (a directory under root, created
// if missing) named prefix+ext, or prefix-2+ext, prefix-3+ext, ... when that
// name is taken, exclusively (O_EXCL): two reports written in the same second
// never overwrite each other. It returns the file and its name under root; the
// caller closes it.
func CreateUnique(root *os.Root, dir, prefix, ext string) (*os.File, string, error) {
	if err := root.MkdirAll(dir, DirMode); err != nil {
		return nil, "", err
	}
	for n := 1; n < 10000; n++ {
		name := prefix + ext
		if n > 1 {
			name = fmt.Sprintf("%s-%d%s", prefix, n, ext)
		}
		name = filepath.Join(dir, name)
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, Mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("%s: too many files named %s*%s", dir, prefix, ext)
}

// WriteUnique writes data to a new file made by CreateUnique and returns its
// name under root.
func WriteUnique(root *os.Root, dir, prefix, ext string, data []byte) (string, error) {
	f, name, err := CreateUnique(root, dir, prefix, ext)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		root.Remove(name)
		return "", err
	}
	if err := f.Close(); err != nil {
		root.Remove(name)
		return "", err
	}
	return name, nil
}

// WriteAtomically writes path (its directory created if missing) as
// WriteIn does.
func WriteAtomically(path string, fill func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return WriteIn(root, filepath.Base(path), fill)
}

// WriteIn writes name under root (its directory created if missing) through
// a temporary file in the same directory (mode 0600) renamed over it at the
// end, so a reader never sees half a file. It refuses to replace anything that
// is not a regular file (a symlink, a directory).
func WriteIn(root *os.Root, name string, fill func(io.Writer) error) error {
	dir := filepath.Dir(name)
	if err := root.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	if fi, err := root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file", name)
	}
	tmp, tmpName, err := CreateUnique(root, dir, "."+strings.TrimPrefix(filepath.Base(name), ".")+"-"+strconv.Itoa(os.Getpid()), ".tmp")
	if err != nil {
		return err
	}
	defer root.Remove(tmpName)
	w := bufio.NewWriter(tmp)
	if err := fill(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return root.Rename(tmpName, name)
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
