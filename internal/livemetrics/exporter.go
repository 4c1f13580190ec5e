// Package livemetrics serves a run's figures as OpenMetrics while it goes
// (--metrics-addr), for Prometheus to scrape and Grafana to draw: the
// transactions by type and outcome, a latency histogram per type, the rates
// of the last interval, the run's identity, and the collectors' latest
// samples. It is fed the same per-interval snapshots the recorder stores, so
// what Prometheus sees adds up to what the run reports. Exposition is the
// official client library's (prometheus/client_golang).
package livemetrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/metrics"
)

// Info is the run's identity, the labels of pgoltp_run_info.
type Info struct {
	RunID, Workload, Group, Part, PGMajor, Path, Mode string
}

// Rate is a headline rate the run reports, counted from one transaction
// type: {"tpmC", "new_order", time.Minute}.
type Rate struct {
	Figure, Type string
	Per          time.Duration
}

// Exporter holds the run's figures as Prometheus metrics.
type Exporter struct {
	reg  *prometheus.Registry
	info Info

	mu        sync.Mutex
	latency   map[string]*hdrhistogram.Histogram // cumulative, µs, per type
	counts    map[[2]string]float64              // type, outcome → total
	retries   map[string]float64
	lastRate  map[string]float64 // type → per second over the last interval
	headline  []Rate
	collected func() []collect.Point
	addr      string
}

// Addr is the address the endpoint listens on (after Serve).
func (e *Exporter) Addr() string { return e.addr }

// New returns an exporter for one run.
func New(info Info, headline ...Rate) *Exporter {
	e := &Exporter{reg: prometheus.NewRegistry(), info: info, latency: map[string]*hdrhistogram.Histogram{},
		counts: map[[2]string]float64{}, retries: map[string]float64{}, lastRate: map[string]float64{}, headline: headline}
	e.reg.MustRegister(e)
	return e
}

// SetRunID labels the run once the store has given it its id.
func (e *Exporter) SetRunID(id string) {
	e.mu.Lock()
	e.info.RunID = id
	e.mu.Unlock()
}

// SetMajor labels the run with the server's PostgreSQL major (0: unknown).
func (e *Exporter) SetMajor(major int) {
	if major <= 0 {
		return
	}
	e.mu.Lock()
	e.info.PGMajor = strconv.Itoa(major)
	e.mu.Unlock()
}

// SetCollected gives the source of the collectors' latest samples.
func (e *Exporter) SetCollected(fn func() []collect.Point) {
	e.mu.Lock()
	e.collected = fn
	e.mu.Unlock()
}

// Interval adds one interval snapshot of the run (the workload's interval
// callback, beside the recorder's).
func (e *Exporter) Interval(snap *metrics.Snapshot, errorCounter string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	secs := snap.End.Sub(snap.Start).Seconds()
	for k, name := range snap.Kinds {
		h := snap.Hists[k]
		if e.latency[name] == nil {
			e.latency[name] = metrics.NewHistogram()
		}
		if h.TotalCount() > 0 {
			e.latency[name].Merge(h)
		}
		e.counts[[2]string{name, "committed"}] += float64(h.TotalCount())
		if secs > 0 {
			e.lastRate[name] = float64(h.TotalCount()) / secs
		}
		for c, counter := range snap.CounterNames {
			n := float64(snap.Counters[k][c])
			switch outcome := outcomeOf(counter, errorCounter); outcome {
			case "":
			case "retries":
				e.retries[name] += n
			default:
				e.counts[[2]string{name, outcome}] += n
			}
		}
	}
}

// outcomeOf names the outcome a workload's counter counts ("" for one that
// is not an outcome of a transaction).
func outcomeOf(counter, errorCounter string) string {
	switch c := strings.ToLower(counter); {
	case counter == errorCounter, c == "errors", c == "failed":
		return "failed"
	case strings.HasPrefix(c, "retr"):
		return "retries"
	case strings.HasPrefix(c, "rollback"), c == "rolled_back":
		return "rolled_back"
	case c == "skipped":
		return "skipped"
	}
	return ""
}

// Handler serves the metrics (OpenMetrics when the scraper asks for it).
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Serve listens on addr ("127.0.0.1:9187"; a port alone listens on
// loopback) and serves the metrics until stop, which keeps serving for
// linger first, so that a scrape after the run's end sees its final values.
func (e *Exporter) Serve(addr string) (stop func(linger time.Duration), err error) {
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e.addr = ln.Addr().String()
	mux := http.NewServeMux()
	mux.Handle("/metrics", e.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	return func(linger time.Duration) {
		time.Sleep(linger)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
