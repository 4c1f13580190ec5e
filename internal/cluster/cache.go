package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// The download cache holds programs that pgoltp runs, as root too: it is
// trusted only if no one but its user (or root) can write to it, and each
// build in it only while it is what pgoltp unpacked from a verified archive.
// The manifest written at unpack, with the digest of every file, is checked
// each time a build is used.

// CacheDir is where downloaded PostgreSQL builds are kept: PGOLTP_CACHE if set;
// for root /var/cache/pgoltp, because the server runs as another user who must
// be able to execute the binaries (root's home is private); otherwise the user's
// cache directory.
func CacheDir() string {
	if d := os.Getenv("PGOLTP_CACHE"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/var/cache/pgoltp"
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "pgoltp")
	}
	return filepath.Join(os.TempDir(), "pgoltp-cache")
}

// checkCache refuses a cache directory that someone else could have put
// programs in: one another user owns, or that group or others may write to.
// A missing one is fine (the download creates it).
func checkCache(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return problem.Wrap(err, "set PGOLTP_CACHE to a directory of your own", "cannot use the PostgreSQL cache %s", dir)
	}
	if !fi.IsDir() {
		return problem.BadInput("set PGOLTP_CACHE to a directory", "the PostgreSQL cache %s is not a directory", dir)
	}
	me := uint32(os.Geteuid())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != me && st.Uid != 0 {
		return problem.BadInput(fmt.Sprintf("set PGOLTP_CACHE to a directory of your own (mkdir -m 755 DIR), or chown %d %s", me, dir),
			"refusing the PostgreSQL cache %s: it belongs to uid %d, and pgoltp runs what is in it as uid %d", dir, st.Uid, me)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return problem.BadInput(fmt.Sprintf("chmod go-w %s, or set PGOLTP_CACHE to a directory only you can write", dir),
			"refusing the PostgreSQL cache %s: other users may write to it (mode %s), and pgoltp runs what is in it", dir, fi.Mode())
	}
	return nil
}

const manifestName = "pgoltp-manifest.json"

// manifest lists what an unpacked build holds: the SHA-256 of each regular
// file and the target of each symlink, by path in the build, and the
// digest of the archive it came from.
type manifest struct {
	Archive string            `json:"archive_sha256"`
	Files   map[string]string `json:"files"`
	Links   map[string]string `json:"links"`
}

// errNoManifest: a build pgoltp did not unpack (an older pgoltp did, or
// someone copied it there).
var errNoManifest = errors.New("no manifest: not unpacked by this pgoltp")

// writeManifest records the build unpacked in root, from the archive of the
// given digest.
func writeManifest(root, archiveSHA256 string) error {
	m, err := scanTree(root)
	if err != nil {
		return err
	}
	m.Archive = archiveSHA256
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return writeNoFollow(filepath.Join(root, manifestName), string(b)+"\n", os.O_EXCL, 0o644)
}

// verifyTree checks that the build in root is exactly what its manifest
// lists: no file changed, missing or added.
func verifyTree(root string) error {
	f, err := openNoFollow(filepath.Join(root, manifestName), os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return errNoManifest
	}
	if err != nil {
		return err
	}
	var want manifest
	err = json.NewDecoder(f).Decode(&want)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", manifestName, err)
	}
	got, err := scanTree(root)
	if err != nil {
		return err
	}
	for _, kind := range []struct{ want, got map[string]string }{{want.Files, got.Files}, {want.Links, got.Links}} {
		for path, digest := range kind.got {
			if kind.want[path] != digest {
				return fmt.Errorf("%s differs from what pgoltp unpacked (or was added)", path)
			}
		}
		for path := range kind.want {
			if _, ok := kind.got[path]; !ok {
				return fmt.Errorf("%s is missing", path)
			}
		}
	}
	return nil
}

// scanTree hashes every regular file and reads every symlink under root,
// never following a link; anything else (a device, a pipe) is an error.
func scanTree(root string) (manifest, error) {
	m := manifest{Files: map[string]string{}, Links: map[string]string{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == manifestName {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			m.Links[rel] = target
			return err
		case d.Type().IsRegular():
			digest, err := fileSHA256(path)
			m.Files[rel] = digest
			return err
		}
		return fmt.Errorf("%s is not a file, directory or symlink", rel)
	})
	return m, err
}

func fileSHA256(path string) (string, error) {
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// verifyBinDir checks, before a cluster runs them, the binaries of a build
// pgoltp unpacked (one with a manifest); the machine's own are the
// system's business.
func verifyBinDir(binDir string) error {
	root := filepath.Dir(binDir)
	if _, err := os.Lstat(filepath.Join(root, manifestName)); err != nil {
		return nil
	}
	if err := verifyTree(root); err != nil {
		return problem.Wrap(err, fmt.Sprintf("remove %s; pgoltp downloads it again", root),
			"refusing to run the PostgreSQL build in %s: it changed after pgoltp unpacked it", root)
	}
	return nil
}
