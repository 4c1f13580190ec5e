package tpcb

import (
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgoltp/pgoltp/internal/workload"
)

// Reads on standbys (issue 31): only the select-only script is read-only,
// so with opts.Reads every client of it connects to a standby, round-robin
// by client; the other scripts write and stay on the primary (Validate
// refuses Reads for them).

// clientConfigs is each client's connection: the run's server, or with
// reads on standbys the standby of the client's turn.
type clientConfigs struct {
	primary *pgconn.Config
	reads   []*pgconn.Config
	nodeOf  func(int) int
}

func newClientConfigs(dsn string, opts RunOptions) (clientConfigs, error) {
	cfg, err := clientConfig(dsn, opts)
	if err != nil {
		return clientConfigs{}, err
	}
	cc := clientConfigs{primary: cfg, nodeOf: opts.Reads.NodeOf}
	for _, n := range opts.Reads.Nodes {
		rc, err := clientConfig(n.DSN, opts)
		if err != nil {
			return clientConfigs{}, err
		}
		cc.reads = append(cc.reads, rc)
	}
	return cc, nil
}

// of is client i's connection.
func (cc clientConfigs) of(i int) *pgconn.Config {
	if len(cc.reads) == 0 {
		return cc.primary
	}
	return cc.reads[cc.nodeOf(i)]
}

// readSplit counts the clients' commits per node (nil without reads on
// standbys).
func readSplit(reads workload.Reads, tallies []*tally, lag []workload.NodeLag) *workload.ReadSplit {
	if !reads.On() {
		return nil
	}
	perNode := make([]int64, len(reads.Nodes))
	for i, t := range tallies {
		perNode[reads.NodeOf(i)] += t.commits
	}
	return workload.NewSplit(0, reads.Nodes, perNode, lag)
}
