package pgbenchlog

import (
	"bufio"
	"container/heap"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A Log is the files one pgbench process wrote: PREFIX.PID for its first
// thread and PREFIX.PID.N for thread N.
type Log struct {
	Prefix string // the --log-prefix (default pgbench_log), with its directory
	PID    int
	Files  []string // thread 0 first
}

// logName matches PREFIX.PID and PREFIX.PID.N; a prefix that ends in
// ".digits" is ambiguous, so Find matches a given prefix exactly.
var logName = regexp.MustCompile(`^(.+?)\.([0-9]+)(?:\.([0-9]+))?$`)

// splitName cuts a file name into its prefix, process id and thread.
func splitName(name, prefix string) (string, int, int, bool) {
	m := logName.FindStringSubmatch(name)
	if prefix != "" {
		rest, ok := strings.CutPrefix(name, prefix+".")
		if !ok {
			return "", 0, 0, false
		}
		m = logName.FindStringSubmatch("p." + rest)
		if m == nil {
			return "", 0, 0, false
		}
		m[1] = prefix
	}
	if m == nil {
		return "", 0, 0, false
	}
	pid, err := strconv.Atoi(m[2])
	thread := 0
	if err == nil && m[3] != "" {
		thread, err = strconv.Atoi(m[3])
	}
	return m[1], pid, thread, err == nil
}

// Find lists the logs in dir, one per pgbench process, oldest process id
// first; prefix, if not empty, keeps only the files of that --log-prefix
// (its base name).
func Find(dir, prefix string) ([]Log, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type key struct {
		prefix string
		pid    int
	}
	threads := map[key]map[int]string{}
	for _, e := range entries {
		name, pid, thread, ok := splitName(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		k := key{name, pid}
		if threads[k] == nil {
			threads[k] = map[int]string{}
		}
		threads[k][thread] = filepath.Join(dir, e.Name())
	}
	var logs []Log
	for k, files := range threads {
		if _, ok := files[0]; !ok {
			continue // thread 0's file is always written: these are not pgbench's
		}
		l := Log{Prefix: filepath.Join(dir, k.prefix), PID: k.pid}
		for n := 0; n < len(files); n++ {
			f, ok := files[n]
			if !ok {
				return nil, fmt.Errorf("%s.%d: thread %d's file is missing", l.Prefix, k.pid, n)
			}
			l.Files = append(l.Files, f)
		}
		logs = append(logs, l)
	}
	sort.Slice(logs, func(i, j int) bool {
		if logs[i].PID != logs[j].PID {
			return logs[i].PID < logs[j].PID
		}
		return logs[i].Prefix < logs[j].Prefix
	})
	return logs, nil
}

// Each calls fn for every transaction of the log's files in completion
// order (each thread's file is in completion order: they are merged), with
// memory bounded by one line per file.
func (l Log) Each(fields Fields, fn func(Txn) error) error {
	var h cursorHeap
	for _, name := range l.Files {
		c, err := openCursor(name, fields)
		if err != nil {
			closeAll(h)
			return err
		}
		if c == nil {
			continue // an empty file: a thread that logged nothing
		}
		h = append(h, c)
	}
	defer func() { closeAll(h) }()
	heap.Init(&h)
	for h.Len() > 0 {
		c := h[0]
		if err := fn(c.txn); err != nil {
			return err
		}
		more, err := c.next()
		if err != nil {
			return err
		}
		if more {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h).(*cursor).file.Close()
		}
	}
	return nil
}

// cursor is one file being read, at its current transaction.
type cursor struct {
	file   *os.File
	sc     *bufio.Scanner
	name   string
	line   int
	fields Fields
	txn    Txn
}

// openCursor opens name at its first transaction (nil for an empty file).
func openCursor(name string, fields Fields) (*cursor, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	c := &cursor{file: f, sc: bufio.NewScanner(f), name: name, fields: fields}
	more, err := c.next()
	if err != nil || !more {
		f.Close()
		return nil, err
	}
	return c, nil
}

// next reads the next transaction; false at the end of the file.
func (c *cursor) next() (bool, error) {
	for c.sc.Scan() {
		c.line++
		text := strings.TrimSpace(c.sc.Text())
		if text == "" {
			continue
		}
		t, err := parseLine(text, c.fields)
		if err != nil {
			if c.line == 1 && aggregated(text) {
				return false, fmt.Errorf("%s holds aggregated lines (--aggregate-interval): pgoltp reads per-transaction logs (-l without --aggregate-interval)", c.name)
			}
			return false, fmt.Errorf("%s:%d: %v", c.name, c.line, err)
		}
		c.txn = t
		return true, nil
	}
	return false, c.sc.Err()
}

// aggregated says a line starts with a Unix time, as --aggregate-interval's
// lines do (a per-transaction line starts with a client number).
func aggregated(line string) bool {
	f := strings.Fields(line)
	n, err := strconv.ParseInt(f[0], 10, 64)
	return err == nil && n > 1e9 && len(f) >= 7
}

func closeAll(h cursorHeap) {
	for _, c := range h {
		c.file.Close()
	}
}

// cursorHeap orders the open files by their current transaction's end.
type cursorHeap []*cursor

func (h cursorHeap) Len() int           { return len(h) }
func (h cursorHeap) Less(i, j int) bool { return h[i].txn.End.Before(h[j].txn.End) }
func (h cursorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
