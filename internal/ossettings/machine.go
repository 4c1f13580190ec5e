package ossettings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/pgoltp/pgoltp/internal/host"
)

// Machine is where the keys live: the kernel's files, and the disk under
// the data directory for block.* keys.
type Machine struct {
	// DataDir is the PostgreSQL data directory whose disk block.* keys
	// change ("" when no block key is used).
	DataDir string
	// queue is the data disk's queue directory in /sys, found once.
	queue, disk string
}

// path is the file of key name on this machine, or why there is none.
func (m *Machine) path(name string) (string, error) {
	k, ok := keys[name]
	if !ok {
		return "", fmt.Errorf("%s is not an OS setting pgoltp changes (allowed: %s)", name, strings.Join(Allowed(), ", "))
	}
	if k.block {
		if m.queue == "" {
			if m.DataDir == "" {
				return "", fmt.Errorf("%s: no data directory to find the disk of", name)
			}
			disk, queue, err := host.BlockDevice(m.DataDir)
			if err != nil {
				return "", fmt.Errorf("%s: the disk under %s: %v", name, m.DataDir, err)
			}
			m.disk, m.queue = disk, queue
		}
		return filepath.Join(m.queue, k.paths[0]), nil
	}
	for _, p := range k.paths {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s does not exist on this kernel (%s)", name, strings.Join(k.paths, " or "))
}

// Where says where name lives, for people: "/sys/block/vda/queue/scheduler".
func (m *Machine) Where(name string) string {
	p, err := m.path(name)
	if err != nil {
		return name
	}
	return p
}

// Read returns the current value of each named key (a choice key's
// selected word).
func (m *Machine) Read(names ...string) (Values, error) {
	out := Values{}
	for _, n := range names {
		p, err := m.path(n)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", n, err)
		}
		if keys[n].kind == choice {
			out[n] = selected(string(b))
		} else {
			out[n] = strings.TrimSpace(string(b))
		}
	}
	return out, nil
}

// choices lists the words a choice key's file accepts.
func (m *Machine) choices(name string) ([]string, error) {
	p, err := m.path(name)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range strings.Fields(string(b)) {
		out = append(out, strings.Trim(w, "[]"))
	}
	return out, nil
}

// writable probes whether name can be written here, without writing: the
// file opened for writing (a read-only mount, a read-only sysctl or a
// missing privilege fails here).
func (m *Machine) writable(name string) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s is not writable here (%s: %v)", name, p, err)
	}
	return f.Close()
}

// write sets one key.
func (m *Machine) write(name, value string) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	if name == NrHugepages {
		return m.writeNrHugepages(p, value)
	}
	if err := writeFile(p, value); err != nil {
		return fmt.Errorf("setting %s=%s: %w", name, value, err)
	}
	return nil
}

// writeFile writes value to a kernel file (never through a symbolic link).
func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// selected returns the bracketed choice of a sysfs list: "mq-deadline" in
// "none [mq-deadline] bfq".
func selected(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// kernelAtLeast reports whether the running kernel is major.minor or newer.
func kernelAtLeast(major, minor int) bool {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return false
	}
	parts := strings.SplitN(strings.TrimSpace(string(b)), ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return ma > major || ma == major && mi >= minor
}
