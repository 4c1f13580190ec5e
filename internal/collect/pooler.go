package collect

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// poolerSampler reads pgbouncer's admin console (issue 31): SHOW POOLS
// (clients and servers by state, the longest client wait) as gauges and
// SHOW STATS (transactions, queries, client wait time) as per-second rates,
// by database. The console speaks the simple protocol only, hence pgconn.
// Its columns are read by name: they grew over pgbouncer's versions.
type poolerSampler struct {
	dsn    string
	conn   *pgconn.PgConn // nil while pgbouncer is unreachable
	prevAt time.Time
	prev   map[string]float64
}

// poolerGauges are SHOW POOLS' columns sampled, by metric.
var poolerGauges = []struct{ column, metric string }{
	{"cl_active", "pooler.clients_active"},
	{"cl_waiting", "pooler.clients_waiting"},
	{"sv_active", "pooler.servers_active"},
	{"sv_idle", "pooler.servers_idle"},
}

// poolerCounters are SHOW STATS' totals turned into rates: scale takes
// the counter's unit to the metric's. total_wait_time (µs clients spent
// waiting for a server) per second is the mean number of clients waiting.
var poolerCounters = []struct {
	column, metric string
	scale          float64
}{
	{"total_xact_count", "pooler.xacts_per_s", 1},
	{"total_query_count", "pooler.queries_per_s", 1},
	{"total_wait_time", "pooler.clients_waiting_mean", 1e-6},
}

func (p *poolerSampler) sample(ctx context.Context, at time.Time, add func(metric, key string, v float64)) error {
	if p.conn == nil {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgconn.Connect(cctx, p.dsn)
		cancel()
		if err != nil {
			return fmt.Errorf("pgbouncer: %w", err)
		}
		p.conn, p.prevAt = conn, time.Time{}
	}
	pools, err := p.show(ctx, "SHOW POOLS")
	if err != nil {
		return err
	}
	for _, row := range pools {
		for _, g := range poolerGauges {
			add(g.metric, row["database"], num(row[g.column]))
		}
		add("pooler.maxwait_s", row["database"], num(row["maxwait"])+num(row["maxwait_us"])/1e6)
	}
	stats, err := p.show(ctx, "SHOW STATS")
	if err != nil {
		return err
	}
	cur := map[string]float64{}
	for _, row := range stats {
		for _, c := range poolerCounters {
			cur[c.column+"|"+row["database"]] = num(row[c.column])
		}
	}
	if secs := at.Sub(p.prevAt).Seconds(); !p.prevAt.IsZero() && secs > 0 {
		for _, row := range stats {
			for _, c := range poolerCounters {
				k := c.column + "|" + row["database"]
				if before, ok := p.prev[k]; ok && cur[k] >= before {
					add(c.metric, row["database"], (cur[k]-before)*c.scale/secs)
				}
			}
		}
	}
	p.prevAt, p.prev = at, cur
	return nil
}

// show runs an admin console command and returns its rows by column name;
// a failure drops the connection, to be made again on the next tick.
func (p *poolerSampler) show(ctx context.Context, command string) ([]map[string]string, error) {
	results, err := p.conn.Exec(ctx, command).ReadAll()
	if err == nil && len(results) == 0 {
		err = fmt.Errorf("no result")
	}
	if err != nil {
		p.close(ctx)
		return nil, fmt.Errorf("pgbouncer %s: %w", command, err)
	}
	r := results[0]
	rows := make([]map[string]string, 0, len(r.Rows))
	for _, values := range r.Rows {
		row := map[string]string{}
		for i, f := range r.FieldDescriptions {
			row[f.Name] = string(values[i])
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func (p *poolerSampler) close(ctx context.Context) {
	if p.conn != nil {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		p.conn.Close(cctx)
		cancel()
		p.conn = nil
	}
}

func num(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
