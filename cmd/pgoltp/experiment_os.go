package main

import (
	"context"
	"fmt"
	"github.com/pgoltp/pgoltp/internal/doctor"
	"github.com/pgoltp/pgoltp/internal/experiment"
	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/restore"
	"io"
	"net"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// planChangesOS reports whether the plan's baseline or a step has os:.
func planChangesOS(p *experiment.Plan) bool {
	if len(p.Baseline.OS) > 0 {
		return true
	}
	for _, s := range p.Steps {
		if len(s.OS) > 0 {
			return true
		}
	}
	return false
}

// refuseOS refuses an OS plan before anything connects: not root, no
// --allow-os, or a --dsn whose host is not this machine.
func refuseOS(allow bool) error {
	// A plan that changes the OS refuses over a pending OS record itself,
	// in one line: no warning before it.
	warnedPending.Do(func() {})
	return ossettings.Refuse(allow, remoteHost(global.dsn))
}

// osOptions are the experiment's OS options once the server is known: a
// --dsn server whose backends are not processes of this machine is remote
// (the host named it local, but it is another machine or a container).
func osOptions(ctx context.Context, allow bool, dsn string) (ossettings.Options, error) {
	opts := ossettings.Options{Allow: allow, Remote: remoteHost(global.dsn)}
	if global.dsn == "" || opts.Remote != "" {
		return opts, nil
	}
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return opts, err
	}
	defer conn.Close(context.Background())
	if !host.IsLocalServer(ctx, conn) {
		_, opts.Remote, _ = pending.DSNKey(global.dsn)
	}
	return opts, nil
}

// remoteHost describes the server of dsn when its host is not this
// machine (not a socket, not loopback, not one of its addresses); "" when
// it is here or there is no --dsn.
func remoteHost(dsn string) string {
	if dsn == "" {
		return ""
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return ""
	}
	if isLocalHost(cfg.Host) {
		return ""
	}
	_, server, _ := pending.DSNKey(dsn)
	return server
}

// isLocalHost: a Unix socket, localhost, a loopback address or an address
// of this machine's interfaces.
func isLocalHost(host string) bool {
	if host == "" || host[0] == '/' || host == "localhost" {
		return true
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return false
	}
	addrs, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip.IsLoopback() {
			return true
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// planTarget is the server a plan runs on and the DSN of its database.
type planTarget struct {
	server restore.Server
	dsn    string
}

// writeOSPlan prints doctor's OS recommendations as an experiment plan.
func writeOSPlan(w io.Writer, d *doctor.Diagnosis) error {
	recs := osRecommendations(d)
	if len(recs) == 0 {
		return problem.Failed("doctor recommends no OS change for this server%s", notLocal(d))
	}
	_, err := io.WriteString(w, ossettings.PlanText(recs))
	return err
}

func notLocal(d *doctor.Diagnosis) string {
	if !d.Local {
		return " (it does not run on this machine, so the OS was not audited)"
	}
	return ""
}

// osRecommendations are doctor's findings that come with an os: fix.
func osRecommendations(d *doctor.Diagnosis) []ossettings.Recommendation {
	var out []ossettings.Recommendation
	for _, f := range d.Findings {
		if len(f.OS) > 0 {
			out = append(out, ossettings.Recommendation{Name: f.ID, Title: f.Title, OS: f.OS})
		}
	}
	return out
}

// runFromDoctor asks doctor what it recommends for the OS under the server
// and measures it, one step each: doctor's steps in the plan of args[0]
// (its workload, duration and baseline) or in the header ossettings.PlanText writes.
func runFromDoctor(ctx context.Context, out io.Writer, args []string, f experimentFlags) error {
	if err := refuseOS(f.allowOS); err != nil {
		return err
	}
	server, dsn, err := tunedServer(ctx, experimentDatabase)
	if err != nil {
		return err
	}
	d, err := doctor.DoctorAt(ctx, dsn, doctor.DoctorOptions{OS: true})
	if err != nil {
		return problem.Failed("doctor: %v", err)
	}
	recs := osRecommendations(d)
	if len(recs) == 0 {
		_, err := fmt.Fprintf(out, "doctor recommends no OS change for this server%s: nothing to measure\n", notLocal(d))
		return err
	}
	text := ossettings.PlanText(recs)
	plan, err := experiment.ParsePlan(strings.NewReader(text))
	if err != nil {
		return problem.Failed("doctor's plan does not parse: %v", err)
	}
	if len(args) == 1 {
		if plan, err = experiment.ReadPlanWithSteps(args[0], plan.Steps); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "pgoltp: measuring doctor's OS recommendations:\n%s", text)
	return runPlan(ctx, out, plan, f, &planTarget{server, dsn})
}
