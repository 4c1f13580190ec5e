package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// initdb and what survives a kill during it. The data directory's marker
// (data/.pgoltp-owned) can only be written once initdb is done, since initdb
// wants an empty directory; until then the lab's creating record says which
// data directory pgoltp made, so that a create killed half-way is recognised
// by the next one and started over, and a directory pgoltp did not make is
// still refused.

const (
	creatingName       = ".pgoltp-creating"
	initdbPasswordName = ".initdb-password"
)

func creatingPath(lab string) string       { return filepath.Join(lab, creatingName) }
func initdbPasswordPath(lab string) string { return filepath.Join(lab, initdbPasswordName) }

func (c *Cluster) initdb(ctx context.Context) error {
	pwFile := initdbPasswordPath(c.Lab)
	if err := c.writeInitdbPassword(pwFile); err != nil {
		return err
	}
	defer os.Remove(pwFile)
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "initdb"),
		"-D", c.DataDir, "-U", Superuser, "--pwfile="+pwFile,
		"--auth-local=scram-sha-256", "--auth-host=scram-sha-256",
		"--encoding=UTF8", "--locale=C")
	dieWithParent(cmd) // a killed pgoltp must not leave initdb writing into a directory the next create removes
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb failed: %v: %s", err, lastLines(string(out), 3))
	}
	return nil
}

// writeInitdbPassword writes the superuser password for initdb to read: a
// new file (never one someone prepared), mode 0600, handed to the server
// user before the password is in it.
func (c *Cluster) writeInitdbPassword(path string) error {
	_ = os.Remove(path) // left by a create that was killed
	f, err := openNoFollow(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil { // whatever the umask
		return err
	}
	if !c.user.self {
		if err := f.Chown(int(c.user.UID), int(c.user.GID)); err != nil {
			return err
		}
	}
	if _, err := f.WriteString(c.password + "\n"); err != nil {
		return err
	}
	return f.Close()
}

// creatingRecord names the data directory a create made ("made") or found
// empty and filled ("filled"), by device and inode.
type creatingRecord struct {
	filled   bool
	dev, ino uint64
}

// recordCreating writes the lab's creating record for the data directory
// makeDirs prepared, before initdb writes anything into it.
func (c *Cluster) recordCreating(m *createdFiles) error {
	return recordCreatingAt(creatingPath(c.Lab), c.DataDir, m)
}

// recordCreatingAt writes the creating record at path for the data
// directory dir (the primary's, or a standby's before pg_basebackup).
func recordCreatingAt(path, dir string, m *createdFiles) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("no inode for " + dir)
	}
	how := "made"
	if m.emptied != "" {
		how = "filled"
	}
	f, err := openNoFollow(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	m.record = path
	if _, err := fmt.Fprintf(f, "%s %d %d\n", how, uint64(st.Dev), uint64(st.Ino)); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// readCreating reads the lab's creating record; ok is false when there is
// none or it is not one pgoltp wrote.
func readCreating(lab string) (rec creatingRecord, ok bool) {
	return readCreatingAt(creatingPath(lab))
}

// readCreatingAt reads the creating record at path (see readCreating).
func readCreatingAt(path string) (rec creatingRecord, ok bool) {
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return rec, false
	}
	defer f.Close()
	b := make([]byte, 128)
	n, _ := f.Read(b)
	fields := strings.Fields(string(b[:n]))
	if len(fields) != 3 || (fields[0] != "made" && fields[0] != "filled") {
		return rec, false
	}
	rec.filled = fields[0] == "filled"
	var err1, err2 error
	rec.dev, err1 = strconv.ParseUint(fields[1], 10, 64)
	rec.ino, err2 = strconv.ParseUint(fields[2], 10, 64)
	return rec, err1 == nil && err2 == nil
}

// names reports whether the record is about dir as it is now: the same
// directory (device and inode), still a directory of the server user's.
func (rec creatingRecord) names(dir string, u serverUser) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Dev) == rec.dev && uint64(st.Ino) == rec.ino && st.Uid == u.UID
}

// waitUnused waits a few seconds for the processes that still work in the
// data directory of an interrupted create (the server initdb ran, finishing
// after initdb was killed) to end: it is not removed under them.
func waitUnused(dataDir string) error {
	var left []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if left = processesIn(dataDir); len(left) == 0 {
			return nil
		}
	}
	return problem.BadInput(fmt.Sprintf("wait for them to end, or stop them (kill %s), then run the command again", joinPIDs(left)),
		"processes %s still work in %s, left by an interrupted create", joinPIDs(left), dataDir)
}

// startOver removes what an interrupted create of pgoltp's own left in the
// data directory: the directory itself if it made it, else only what it put
// in it.
func (rec creatingRecord) startOver(dir string) error {
	if rec.filled {
		removeContents(dir)
		_, empty, err := isEmptyDir(dir)
		if err == nil && !empty {
			err = fmt.Errorf("cannot empty %s", dir)
		}
		return err
	}
	return os.RemoveAll(dir)
}
