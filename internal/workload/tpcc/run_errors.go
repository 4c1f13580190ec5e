package tpcc

import (
	"sort"
	"strings"
	"sync"

	"github.com/pgoltp/pgoltp/internal/driver"
)

// ErrorCount is one kind of error seen during a run: the transaction, the
// SQLSTATE (empty if not from the server), how often, and the first message.
type ErrorCount struct {
	Txn      string `json:"txn"`
	SQLState string `json:"sqlstate"`
	Count    int64  `json:"count"`
	Message  string `json:"message"`
}

// errorLog collects errors by (kind, SQLSTATE). Only the error path takes its
// lock.
type errorLog struct {
	mu     sync.Mutex
	counts map[errorKey]*ErrorCount
}

type errorKey struct {
	kind  int
	state string
}

func (l *errorLog) add(kind int, err error) {
	state := driver.SQLState(err)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts = map[errorKey]*ErrorCount{}
	}
	k := errorKey{kind, state}
	e := l.counts[k]
	if e == nil {
		msg := err.Error()
		if len(msg) > 300 {
			msg = msg[:300]
		}
		e = &ErrorCount{Txn: kinds[kind].name, SQLState: state, Message: strings.TrimSpace(msg)}
		l.counts[k] = e
	}
	e.Count++
}

func (l *errorLog) list() []ErrorCount {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]ErrorCount, 0, len(l.counts))
	for _, e := range l.counts {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}
