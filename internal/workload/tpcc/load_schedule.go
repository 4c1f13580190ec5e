package tpcc

import (
	"context"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"
)

// A loadQueue hands the load's workers their next task: an index build
// whose relation's data is all in, else the next COPY job. A relation's
// indexes are so built while its heap is still in the page cache and while
// the other worker goes on with the next relation's COPY. Built after the
// whole data phase, at 500 warehouses (44 GB of tables, more than the
// machine's memory), every build re-read its heap from the disk and the
// index phase cost twice as much per row as at 10 (bench/RESULTS.md).
type loadQueue struct {
	mu      sync.Mutex
	wake    *sync.Cond
	jobs    []copyJob
	next    int                     // the next COPY job to hand out
	copying map[string]int          // COPY jobs not finished, per relation
	waiting map[string][]indexBuild // builds whose relation's data is not all in
	ready   []indexBuild            // builds that may start, biggest first
	running int                     // tasks handed out and not finished
	stopped bool                    // a task failed or the load was cancelled
	// dataDone is called once, when the last COPY job has finished, with
	// the number of builds not finished.
	dataDone func(buildsLeft int)
}

// loadTask is a COPY job or an index build.
type loadTask struct {
	job   *copyJob
	build *indexBuild
}

func newLoadQueue(jobs []copyJob, builds []indexBuild, dataDone func(int)) *loadQueue {
	q := &loadQueue{jobs: jobs, copying: map[string]int{}, waiting: map[string][]indexBuild{}, dataDone: dataDone}
	q.wake = sync.NewCond(&q.mu)
	for _, j := range jobs {
		q.copying[j.rel]++
	}
	for _, b := range builds {
		if q.copying[b.rel] > 0 {
			q.waiting[b.rel] = append(q.waiting[b.rel], b)
		} else {
			q.ready = append(q.ready, b) // nothing to load into it (kept, or an empty partition)
		}
	}
	sortBuilds(q.ready)
	if len(jobs) == 0 && dataDone != nil {
		dataDone(len(builds))
	}
	return q
}

// take waits for the next task; ok is false when there is none left.
func (q *loadQueue) take() (t loadTask, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		switch {
		case q.stopped:
			return loadTask{}, false
		case len(q.ready) > 0:
			b := q.ready[0]
			q.ready = q.ready[1:]
			q.running++
			return loadTask{build: &b}, true
		case q.next < len(q.jobs):
			q.next++
			q.running++
			return loadTask{job: &q.jobs[q.next-1]}, true
		case q.running == 0:
			return loadTask{}, false // every build's relation had its data: none waits
		}
		q.wake.Wait() // builds wait for COPY jobs still running elsewhere
	}
}

// finish records a task's end; a finished COPY job releases its relation's
// builds when it was the relation's last.
func (q *loadQueue) finish(t loadTask, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running--
	if err != nil {
		q.stopped = true
	} else if t.job != nil {
		rel := t.job.rel
		if q.copying[rel]--; q.copying[rel] == 0 {
			q.ready = append(q.ready, q.waiting[rel]...)
			delete(q.waiting, rel)
			sortBuilds(q.ready)
		}
		if q.next == len(q.jobs) && q.copyingLeft() == 0 && q.dataDone != nil {
			q.dataDone(len(q.ready) + q.running)
		}
	}
	q.wake.Broadcast()
}

func (q *loadQueue) copyingLeft() (n int) {
	for _, c := range q.copying {
		n += c
	}
	return n
}

func (q *loadQueue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.wake.Broadcast()
}

// run drives the workers through the queue, each connection taking tasks
// until none is left (runParallel with one turn per connection); the first
// error stops it.
func (q *loadQueue) run(ctx context.Context, conns []*pgx.Conn, copyTask func(context.Context, *pgx.Conn, *copyJob) error, buildTask func(context.Context, *pgx.Conn, *indexBuild) error) error {
	return runParallel(ctx, conns, len(conns), func(ctx context.Context, c *pgx.Conn, _ int) error {
		defer context.AfterFunc(ctx, q.stop)() // cancelled: wake the workers waiting in take
		for {
			t, ok := q.take()
			if !ok {
				return nil
			}
			var err error
			if t.job != nil {
				err = copyTask(ctx, c, t.job)
			} else {
				err = buildTask(ctx, c, t.build)
			}
			q.finish(t, err)
			if err != nil {
				return err
			}
		}
	})
}

// sortBuilds puts the biggest builds first.
func sortBuilds(builds []indexBuild) {
	slices.SortStableFunc(builds, func(a, b indexBuild) int { return b.cost - a.cost })
}
