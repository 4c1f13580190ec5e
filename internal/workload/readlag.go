package workload

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
)

// LagEvery is how often the lag each standby's reads see is sampled: two
// small queries per sample and standby, cheap beside any run.
const LagEvery = 250 * time.Millisecond

// LagMeasure says, in the output, what the lag figures are.
var LagMeasure = fmt.Sprintf("sampled every %s on each standby while the run went (per interval, not per read): "+
	"bytes = the primary's pg_current_wal_lsn() minus the standby's pg_last_wal_replay_lsn() read just after it; "+
	"time = how long before that reading the primary had first written past the replayed position (a lower bound, to %s; 0 when replay had caught up)",
	LagEvery, LagEvery)

// NodeLag is the staleness of one standby over a run.
type NodeLag struct {
	Node     string        `json:"node"`
	Samples  int64         `json:"samples"`
	BytesP50 int64         `json:"bytes_p50"`
	BytesP99 int64         `json:"bytes_p99"`
	BytesMax int64         `json:"bytes_max"`
	TimeP50  time.Duration `json:"time_p50_ns"`
	TimeP90  time.Duration `json:"time_p90_ns"`
	TimeP99  time.Duration `json:"time_p99_ns"`
	TimeMax  time.Duration `json:"time_max_ns"`
	Error    string        `json:"error,omitempty"` // sampling stopped early
}

func (l NodeLag) line() string {
	s := fmt.Sprintf("read lag on %s (%d samples): time p50 %s, p90 %s, p99 %s, max %s; bytes p50 %d, p99 %d, max %d",
		l.Node, l.Samples, l.TimeP50.Round(time.Millisecond), l.TimeP90.Round(time.Millisecond), l.TimeP99.Round(time.Millisecond),
		l.TimeMax.Round(time.Millisecond), l.BytesP50, l.BytesP99, l.BytesMax)
	if l.Error != "" {
		s += "; sampling stopped: " + l.Error
	}
	return s
}

// LagWatch samples the standbys' lag behind the primary until Stop.
type LagWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	nodes  []lagNode
}

type lagNode struct {
	name          string
	conn          *pgx.Conn
	bytes, micros *hdrhistogram.Histogram
	err           error
}

// primaryMark is the primary's WAL position at a time.
type primaryMark struct {
	at  time.Time
	lsn int64
}

// marksKept bounds the primary's positions kept to date a standby's replay
// position (10 minutes at LagEvery); a standby further behind is dated at
// the oldest kept, a lower bound still.
const marksKept = int(10 * time.Minute / LagEvery)

// WatchLag starts sampling every standby's lag; Stop ends it.
// Without standbys it does nothing (a nil *LagWatch, whose Stop is nil).
func (r Reads) WatchLag(ctx context.Context) (*LagWatch, error) {
	if !r.On() {
		return nil, nil
	}
	primary, err := adminconn.Connect(ctx, r.PrimaryDSN)
	if err != nil {
		return nil, fmt.Errorf("connecting to the primary for the read lag: %w", err)
	}
	w := &LagWatch{done: make(chan struct{})}
	for _, n := range r.Nodes {
		conn, err := adminconn.Connect(ctx, n.DSN)
		if err != nil {
			w.close(primary)
			return nil, fmt.Errorf("connecting to %s for the read lag: %w", n.Name, err)
		}
		w.nodes = append(w.nodes, lagNode{name: n.Name, conn: conn,
			bytes: hdrhistogram.New(0, 1<<40, 3), micros: hdrhistogram.New(0, int64(time.Hour/time.Microsecond), 3)})
	}
	// The first sample before the run starts: every run has one, however
	// short it is.
	var marks []primaryMark
	if err := w.step(ctx, primary, &marks, false); err != nil {
		w.close(primary)
		return nil, fmt.Errorf("reading the read lag: %w", err)
	}
	var sampleCtx context.Context
	sampleCtx, w.cancel = context.WithCancel(context.WithoutCancel(ctx))
	go w.run(sampleCtx, primary, marks)
	return w, nil
}

func (w *LagWatch) run(ctx context.Context, primary *pgx.Conn, marks []primaryMark) {
	defer close(w.done)
	defer w.close(primary)
	tick := time.NewTicker(LagEvery)
	defer tick.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			if err := w.step(ctx, primary, &marks, false); err != nil && ctx.Err() == nil {
				w.fail(ctx, err)
				return
			}
		}
	}
	// One more sample once the run has ended, unless the end cut a query
	// short (pgx then closes the connection): a connection lost that way is
	// no error of the run's.
	final, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = w.step(final, primary, &marks, true)
}

// step marks the primary's WAL position and samples each standby against
// it; ending: a standby that cannot be read is not recorded as failing.
func (w *LagWatch) step(ctx context.Context, primary *pgx.Conn, marks *[]primaryMark, ending bool) error {
	lsn, err := queryLSN(ctx, primary, sqlPrimaryLSN)
	if err != nil {
		return err
	}
	*marks = append(*marks, primaryMark{time.Now(), lsn})
	if len(*marks) > marksKept {
		*marks = append((*marks)[:0], (*marks)[len(*marks)-marksKept:]...)
	}
	w.sample(ctx, *marks, ending)
	return nil
}

// sample reads each standby's replay position and records how far behind
// the primary's last mark it is, in bytes and in time.
func (w *LagWatch) sample(ctx context.Context, marks []primaryMark, ending bool) {
	last := marks[len(marks)-1]
	var wg sync.WaitGroup
	for i := range w.nodes {
		n := &w.nodes[i]
		if n.err != nil {
			continue
		}
		wg.Go(func() {
			replayed, err := queryLSN(ctx, n.conn, sqlReplayLSN)
			at := time.Now()
			if err != nil || replayed < 0 {
				if ctx.Err() == nil && !ending {
					n.err = fmt.Errorf("reading the replay position: %v (in recovery: %v)", err, replayed >= 0)
				}
				return
			}
			_ = n.bytes.RecordValue(max(0, last.lsn-replayed))
			_ = n.micros.RecordValue(staleness(marks, replayed, at).Microseconds())
		})
	}
	wg.Wait()
}

// staleness is how long before at the primary first stood past replayed
// among marks: the age of the oldest write the standby had not replayed,
// to the marks' resolution (0 when it had replayed the last mark).
func staleness(marks []primaryMark, replayed int64, at time.Time) time.Duration {
	if replayed >= marks[len(marks)-1].lsn {
		return 0
	}
	for _, m := range marks {
		if m.lsn > replayed {
			return max(0, at.Sub(m.at))
		}
	}
	return 0
}

func (w *LagWatch) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	for i := range w.nodes {
		if w.nodes[i].err == nil {
			w.nodes[i].err = fmt.Errorf("reading the primary's WAL position: %v", err)
		}
	}
}

func (w *LagWatch) close(primary *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = primary.Close(ctx)
	for _, n := range w.nodes {
		_ = n.conn.Close(ctx)
	}
}

// Stop ends the sampling and returns each standby's lag.
func (w *LagWatch) Stop() []NodeLag {
	if w == nil {
		return nil
	}
	w.cancel()
	<-w.done
	out := make([]NodeLag, len(w.nodes))
	for i, n := range w.nodes {
		out[i] = NodeLag{Node: n.name, Samples: n.bytes.TotalCount(),
			BytesP50: n.bytes.ValueAtQuantile(50), BytesP99: n.bytes.ValueAtQuantile(99), BytesMax: n.bytes.Max(),
			TimeP50: micros(n.micros.ValueAtQuantile(50)), TimeP90: micros(n.micros.ValueAtQuantile(90)),
			TimeP99: micros(n.micros.ValueAtQuantile(99)), TimeMax: micros(n.micros.Max())}
		if n.err != nil {
			out[i].Error = n.err.Error()
		}
	}
	return out
}

func micros(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
