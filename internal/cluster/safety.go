package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/runfile"
)

// What pgoltp owns in a lab, and only that, it may remove:
//
//	data/.pgoltp-owned  marks a data directory pgoltp's initdb filled; a data
//	                    directory without it (or the creating record naming
//	                    it, see initdb.go) is never touched
//	cluster.json, password, pgpass, pgoltp.lock, log/server.log  its own files
//	run/ or /tmp/pgoltp-*  the socket directory it created (removed only when empty)
const ownedMarker = ".pgoltp-owned"

func markerPath(dataDir string) string { return filepath.Join(dataDir, ownedMarker) }

// ensureLab creates the lab directory if it is missing and, as root, refuses
// one another user may write to: such a user could plant symlinks or files
// that root would then write through or remove. created says whether this
// call made the directory.
func ensureLab(lab string) (created bool, err error) {
	if err := checkLabPath(lab); err != nil {
		return false, err
	}
	if _, err := os.Lstat(lab); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(lab, 0o755); err != nil {
			return false, problem.Wrap(err, "choose another --lab", "cannot create the lab directory %s", lab)
		}
		created = true
	}
	return created, runfile.CheckLab(lab)
}

// checkLabDirs refuses a data or log directory of the lab that is a symlink
// or not a directory: pgoltp removes and hands to the server user what is in
// them, and must not do so at the end of a link someone made, nor to a
// user's file.
func checkLabDirs(lab string) error {
	for _, name := range []string{"data", "log"} {
		if err := checkLabDir(filepath.Join(lab, name)); err != nil {
			return err
		}
	}
	return nil
}

// checkLabDir is checkLabDirs for one directory p (data/, log/, a standby's).
func checkLabDir(p string) error {
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return problem.Wrap(err, "choose another --lab", "cannot use %s", p)
	case fi.Mode()&os.ModeSymlink != 0:
		return problem.BadInput("remove the link (to keep data on another disk, put the whole lab there with --lab), or choose another --lab",
			"refusing %s: it is a symlink, and pgoltp does not follow links in the lab it removes or hands to the server user", p)
	case !fi.IsDir():
		return problem.BadInput("move it away, or choose another --lab",
			"refusing %s: it is not a directory, and pgoltp did not create it", p)
	}
	return nil
}

// checkLabPath refuses characters that pg_ctl cannot pass through the shell
// command it builds (it quotes paths with double quotes only). Spaces and
// single quotes are fine.
func checkLabPath(lab string) error {
	if i := strings.IndexAny(lab, "\"$`\\\n\r\t"); i >= 0 {
		return problem.BadInput("use a --lab path without \", $, `, \\ or control characters",
			"the lab path %q contains %q, which pg_ctl cannot quote", lab, lab[i])
	}
	return nil
}

// openNoFollow opens path without following a symlink in its last element.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
}

// writePrivate writes a file of pgoltp's own, readable by its owner only,
// never through a symlink.
func writePrivate(path, content string) error {
	return writeNoFollow(path, content, os.O_TRUNC, 0o600)
}

// writeNoFollow writes content to path (created if missing, with extra open
// flags such as O_EXCL or O_TRUNC), never through a symlink.
func writeNoFollow(path, content string, flag int, mode os.FileMode) error {
	f, err := openNoFollow(path, os.O_CREATE|os.O_WRONLY|flag, mode)
	if err != nil {
		return err
	}
	return writeAndClose(f, content)
}

// writeAndClose writes content to f and closes it, reporting the first
// error (a failed write still closes the file).
func writeAndClose(f *os.File, content string) error {
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeInData writes content to a file in the data directory, opened with
// flag by openInData.
func (u serverUser) writeInData(path, content string, flag int) error {
	f, err := u.openInData(path, flag)
	if err != nil {
		return err
	}
	return writeAndClose(f, content)
}

// openInData opens a file in the data directory, which belongs to the server
// user: as root, a symlink or a hard link planted there must not make pgoltp
// write to another file.
func (u serverUser) openInData(path string, flag int) (*os.File, error) {
	// Truncate only once the file is known to be the right one.
	f, err := openNoFollow(path, flag&^os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || st == nil || st.Nlink != 1 || (st.Uid != u.UID && st.Uid != uint32(os.Geteuid())) {
		f.Close()
		return nil, fmt.Errorf("refusing to write %s: not a plain file of the server user", path)
	}
	if !u.self {
		if err := f.Chown(int(u.UID), int(u.GID)); err != nil {
			f.Close()
			return nil, err
		}
	}
	if flag&os.O_TRUNC != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// isEmptyDir reports whether dir exists and holds nothing; a symlink or a
// file is an error, never followed nor taken for an empty directory.
func isEmptyDir(dir string) (exists, empty bool, err error) {
	f, err := openNoFollow(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, true, nil
	}
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) == 0 {
		return true, true, nil
	}
	return true, false, err
}

// processOf reads the real uid and the executable of a process from /proc.
func processOf(pid int) (uid uint32, exe string, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, "", err
	}
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Uid:" {
			n, err := strconv.ParseUint(f[1], 10, 32)
			if err != nil {
				return 0, "", err
			}
			uid, found = uint32(n), true
		}
	}
	if !found {
		return 0, "", fmt.Errorf("no Uid in /proc/%d/status", pid)
	}
	exe, err = os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
	return uid, runningExe(exe), err
}

// runningExe is the path a process was started from, as /proc/PID/exe
// names it. When that file has been replaced since (a package upgrade of
// PostgreSQL while the lab's server runs), the kernel appends " (deleted)":
// the process is still the one started from that path, and pgoltp must
// still be able to stop its own server.
func runningExe(link string) string {
	return strings.TrimSuffix(link, " (deleted)")
}
