package cluster

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Status is what 'pgoltp cluster status' shows; never the password.
type Status struct {
	Lab        string `json:"lab"`
	Running    bool   `json:"running"`
	Version    string `json:"version"`
	Major      int    `json:"major"`
	BinDir     string `json:"bin_dir"`
	Build      *Build `json:"build,omitempty"` // how it was built, for a build of 'pgoltp build'
	DataDir    string `json:"data_dir"`
	Port       int    `json:"port"`
	SocketDir  string `json:"socket_dir"`
	RunAs      string `json:"run_as"`
	DSN        string `json:"dsn"`
	PassFile   string `json:"passfile"`
	DataSize   string `json:"data_size,omitempty"`
	LogFile    string `json:"log_file"`
	Superuser  string `json:"superuser"`
	ListenAddr string `json:"listen_addresses"`

	Sync   string        `json:"sync,omitempty"`
	Nodes  []NodeStatus  `json:"nodes,omitempty"`
	Pooler *PoolerStatus `json:"pooler,omitempty"`
}

// PoolerStatus is the pooler in 'cluster status' (its auth file's path, never what it holds).
type PoolerStatus struct {
	Kind     string `json:"kind"`
	Version  string `json:"version"`
	Running  bool   `json:"running"`
	Port     int    `json:"port"`
	DSN      string `json:"dsn"`
	Config   string `json:"config"`
	AuthFile string `json:"auth_file"`
	LogFile  string `json:"log_file"`
}

// Status describes the cluster and how to connect to database db; the size
// of its data only when it runs.
func (c *Cluster) Status(ctx context.Context, db string) Status {
	st := Status{
		Lab: c.Lab, Running: c.Running(ctx), Version: c.Version, Major: c.Major, BinDir: c.BinDir,
		DataDir: c.DataDir, Port: c.Port, SocketDir: c.SocketDir, RunAs: c.RunAs,
		DSN: c.DisplayDSN(db), PassFile: c.PassFile(), LogFile: c.LogFile,
		Superuser: Superuser, ListenAddr: "127.0.0.1", Build: c.Build,
	}
	if st.Running {
		st.DataSize = c.DataSize(ctx)
	}
	st.Nodes = c.nodeStatuses(ctx, st.Running)
	if len(c.Standbys) > 0 {
		st.Sync = c.Sync
		if st.Sync == "" {
			st.Sync = SyncOff
		}
	}
	if p := c.Pooler; p != nil {
		st.Pooler = &PoolerStatus{Kind: p.Kind, Version: p.Version, Running: c.PoolerRunning(), Port: p.Port,
			DSN:    fmt.Sprintf("host=%s port=%d user=%s dbname=%s", dsnQuote(c.SocketDir), p.Port, Superuser, dsnQuote(db)),
			Config: c.poolerFile("pgbouncer.ini"), AuthFile: c.poolerFile("userlist.txt"), LogFile: c.poolerLog()}
	}
	return st
}

// WriteText prints the status for people.
func (st Status) WriteText(w io.Writer) error {
	state := "stopped"
	if st.Running {
		state = "running"
	}
	fmt.Fprintf(w, "PostgreSQL %s  %s  (server user %s)\n", st.Version, state, st.RunAs)
	fmt.Fprintf(w, "  lab       %s\n", st.Lab)
	fmt.Fprintf(w, "  data      %s", st.DataDir)
	if st.DataSize != "" {
		fmt.Fprintf(w, "  (%s)", st.DataSize)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  listens   %s/.s.PGSQL.%d and 127.0.0.1:%d\n", st.SocketDir, st.Port, st.Port)
	fmt.Fprintf(w, "  binaries  %s\n", st.BinDir)
	if b := st.Build; b != nil {
		fmt.Fprintf(w, "  build     %s: %s, CFLAGS %q, configure %q\n", b.Name, b.CCVersion, b.CFLAGS, strings.Join(b.Configure, " "))
	}
	fmt.Fprintf(w, "  log       %s\n", st.LogFile)
	_, err := fmt.Fprintf(w, "  connect   PGPASSFILE=%s psql \"%s\"\n", st.PassFile, st.DSN)
	if p := st.Pooler; p != nil {
		state := "stopped"
		if p.Running {
			state = "running"
		}
		fmt.Fprintf(w, "  pooler    %s %s  %s  transaction pooling on %s (config %s)\n", p.Kind, p.Version, state, p.DSN, p.Config)
	}
	if len(st.Nodes) > 0 {
		fmt.Fprintf(w, "  replication  synchronous: %s\n", st.Sync)
		writeNodes(w, st.Nodes)
	}
	return err
}
