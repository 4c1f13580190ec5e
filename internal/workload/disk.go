package workload

import (
	"fmt"
	"io"

	"github.com/dustin/go-humanize"
	"golang.org/x/sys/unix"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// FreeDisk returns the bytes an unprivileged user (the server's) may still
// write on the file system that holds dir.
func FreeDisk(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("reading the free space of %s: %w", dir, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil // Bsize: int64 on Linux, uint32 on macOS
}

// CheckRoom refuses, before anything is dropped, a load that needs about
// need bytes where free() bytes are free and the load's own drop frees
// replaced more. free is nil when the server's disk cannot be seen (a --dsn
// server): then only a note with the estimate goes to note (if not nil).
// fix names the smaller load.
func CheckRoom(what string, need, replaced int64, free func() (int64, error), fix string, note io.Writer) error {
	if free == nil {
		if note != nil {
			fmt.Fprintf(note, "note: %s needs about %s of disk on the server; pgoltp cannot see that disk, so check it has room\n",
				what, humanize.Bytes(uint64(need)))
		}
		return nil
	}
	n, err := free()
	if err != nil {
		return err
	}
	if need <= n+replaced {
		return nil
	}
	have := humanize.Bytes(uint64(n)) + " free"
	if replaced > 0 {
		have += fmt.Sprintf(" (%s with the tables the load replaces)", humanize.Bytes(uint64(n+replaced)))
	}
	return problem.BadInput(fix+", or free disk space on the server",
		"%s needs about %s of disk, and the server's data directory has %s", what, humanize.Bytes(uint64(need)), have)
}
