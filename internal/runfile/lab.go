package runfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// CheckLab refuses a lab that is not a directory and, as root, one that
// another user owns or may write to: such a user could plant symlinks or files
// that root would then write through or remove. Every command that writes into
// a lab (cluster up, the results store, reports, experiments) checks it first.
func CheckLab(lab string) error {
	fi, err := os.Stat(lab)
	if err != nil {
		return problem.Wrap(err, "choose another --lab", "cannot use the lab directory %s", lab)
	}
	return checkLabInfo(lab, fi)
}

// OpenLab checks the lab (CheckLab) and opens it as an os.Root: a file opened
// through it can be reached by neither ".." nor a symlink leading out of the
// lab. The check is made on the directory the root holds, so the lab cannot be
// swapped between the check and its use. The caller closes the root.
func OpenLab(lab string) (*os.Root, error) {
	root, err := os.OpenRoot(lab)
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, notADirectory(lab)
		}
		return nil, problem.Wrap(err, "choose another --lab", "cannot use the lab directory %s", lab)
	}
	fi, err := root.Stat(".")
	if err == nil {
		err = checkLabInfo(lab, fi)
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// EnsureLab creates the lab directory if it is missing (and its parents, mode
// DirMode), then checks it (CheckLab).
func EnsureLab(lab string) error {
	if _, err := os.Lstat(lab); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(lab, DirMode); err != nil {
			return problem.Wrap(err, "choose another --lab", "cannot create the lab directory %s", lab)
		}
	}
	return CheckLab(lab)
}

func checkLabInfo(lab string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return notADirectory(lab)
	}
	if os.Geteuid() != 0 {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && st.Uid != 0 {
		return problem.BadInput(fmt.Sprintf("use a lab directory owned by root (chown root %s) or another --lab", lab),
			"refusing the lab %s: it belongs to uid %d, and pgoltp runs as root", lab, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return problem.BadInput(fmt.Sprintf("chmod go-w %s, or use another --lab", lab),
			"refusing the lab %s: other users may write to it (mode %04o), and pgoltp runs as root", lab, fi.Mode().Perm())
	}
	return nil
}

func notADirectory(lab string) error {
	return problem.BadInput("choose a directory for --lab", "the lab %s is not a directory", lab)
}
