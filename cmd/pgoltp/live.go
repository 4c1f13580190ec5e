package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgoltp/pgoltp/internal/livemetrics"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/recorder"
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
	if addr == "" {
		return func() {}, nil
	}
	if ro.Group.Name != "" {
		info.Group, info.Part = ro.Group.Name, ro.Group.Part.String()
	}
	e := livemetrics.New(info, rates...)
	halt, err := e.Serve(addr)
	if err != nil {
		return nil, problem.Wrap(err, "give a free HOST:PORT, e.g. :9187", "--metrics-addr %s", addr)
	}
	ro.Live = e
	fmt.Fprintf(log, "metrics: serving http://%s/metrics\n", e.Addr())
	return func() { halt(liveLinger) }, nil
}
