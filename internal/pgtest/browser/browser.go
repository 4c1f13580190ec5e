// Package browser opens a report in headless Chromium (the Debian package
// "chromium") so tests can check what a reader would see: the DOM after the
// page's script ran, the console, and a screenshot. It starts Chromium with
// networking features off and a throwaway profile; the report needs no network.
package browser

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Find returns the Chromium binary, or an error saying how to install it.
func Find() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found: install it with 'apt-get install -y chromium'")
}

// Page is a result of loading one file.
type Page struct {
	DOM     string // the serialized DOM after scripts ran
	Console string // what Chromium logged (console messages, page errors)
}

// Load opens file and returns its DOM after scripts ran, and the console log.
func Load(ctx context.Context, bin, file string) (*Page, error) {
	return LoadFragment(ctx, bin, file, "")
}

// LoadFragment is Load with a URL fragment (#...), which a page's script may read.
func LoadFragment(ctx context.Context, bin, file, fragment string) (*Page, error) {
	out, log, err := run(ctx, bin, file, fragment, "--dump-dom")
	if err != nil {
		return nil, err
	}
	return &Page{DOM: out, Console: log}, nil
}

// Screenshot saves a PNG of file rendered at width×height CSS pixels.
func Screenshot(ctx context.Context, bin, file, png string, width, height int) error {
	_, log, err := run(ctx, bin, file, "", "--screenshot="+png, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--hide-scrollbars")
	if err != nil {
		return err
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		return fmt.Errorf("chromium wrote no screenshot: %s", lastLines(log, 5))
	}
	return nil
}

func run(ctx context.Context, bin, file, fragment string, extra ...string) (stdout, stderr string, err error) {
	profile, err := os.MkdirTemp("", "pgoltp-chromium-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(profile)
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", "", err
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--disable-default-apps", "--mute-audio", "--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=5000", "--user-data-dir=" + profile}
	args = append(args, extra...)
	url := "file://" + abs
	if fragment != "" {
		url += "#" + strings.TrimPrefix(fragment, "#")
	}
	args = append(args, url)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = profile
	cmd.Env = append(os.Environ(), "HOME="+profile)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", errb.String(), fmt.Errorf("chromium: %v: %s", err, lastLines(errb.String(), 5))
	}
	return out.String(), errb.String(), nil
}

// ConsoleErrors picks the page's own errors out of Chromium's log: console
// messages at error level and uncaught exceptions, not Chromium's chatter
// about D-Bus or GPU.
func ConsoleErrors(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "CONSOLE") && (strings.Contains(line, "Uncaught") || strings.Contains(line, "ERROR:CONSOLE") || strings.Contains(line, "\"error\"")) {
			out = append(out, line)
		}
		if strings.Contains(line, "Uncaught") && !strings.Contains(line, "CONSOLE") {
			out = append(out, line)
		}
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
