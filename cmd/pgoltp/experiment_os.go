package main

import (
	"context"
	"net"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pending"
	"github.com/pgoltp/pgoltp/internal/tune"
)

// planChangesOS reports whether the plan's baseline or a step has os:.
func planChangesOS(p *tune.Plan) bool {
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
	if !tune.IsLocalServer(ctx, conn) {
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
