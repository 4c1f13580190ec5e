package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// liveLinger is how long the endpoint outlives the run, so that a scrape
// after the end (Prometheus scrapes every few seconds) sees the final values.
const liveLinger = 5 * time.Second

// addMetricsFlag declares --metrics-addr.
func addMetricsFlag(f *pflag.FlagSet, addr *string) {
	f.StringVar(addr, "metrics-addr", "", "serve the run's live metrics for Prometheus at HOST:PORT/metrics (':PORT' listens on 127.0.0.1 only; the endpoint stays up 5s after the run)")
}

// startLive serves the run's metrics at addr (nothing when addr is empty)
// and feeds them from ro; stop ends it after the linger.
func startLive(addr string, ro *recorder.Options, info livemetrics.Info, log io.Writer, rates ...livemetrics.Rate) (stop func(), err error) {
	if ro.Group.Name != "" {
		info.Group, info.Part = ro.Group.Name, ro.Group.Part.String()
	}
	e, stop, err := serveLive(addr, info, log, rates...)
	ro.Live = e
	return stop, err
}

// serveLive serves the metrics of the runs of a command at addr; e is nil
// when addr is empty (then stop does nothing).
func serveLive(addr string, info livemetrics.Info, log io.Writer, rates ...livemetrics.Rate) (e *livemetrics.Exporter, stop func(), err error) {
	if addr == "" {
		return nil, func() {}, nil
	}
	e = livemetrics.New(info, rates...)
	halt, err := e.Serve(addr)
	if err != nil {
		return nil, nil, problem.Wrap(err, "give a free HOST:PORT, e.g. :9187", "--metrics-addr %s", addr)
	}
	fmt.Fprintf(log, "metrics: serving http://%s/metrics\n", e.Addr())
	return e, func() { halt(liveLinger) }, nil
}

// intervalsOf feeds a command's runs to e (nil: none).
func intervalsOf(e *livemetrics.Exporter) workload.IntervalFunc {
	if e == nil {
		return nil
	}
	return e.Interval
}
