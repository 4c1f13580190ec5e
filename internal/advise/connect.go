package advise

import (
	"context"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// ReadServer reads what advice needs from the server at dsn: pg_settings
// (live values and ranges), its major version, whether it runs on this host
// and, when measure > 0, its WAL rate sampled for that long. Bounded, so a
// server that stops answering fails the advice instead of hanging it.
func ReadServer(ctx context.Context, dsn string, measure time.Duration) (live map[string]settings.Live, major int, walRate float64, local bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute+measure)
	defer cancel()
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return nil, 0, 0, false, problem.Wrap(err, "check --dsn", "cannot connect")
	}
	defer conn.Close(context.Background())
	if live, major, err = settings.ReadServer(ctx, conn); err != nil {
		return nil, 0, 0, false, err
	}
	if measure > 0 {
		if walRate, err = MeasureWALRate(ctx, conn, measure); err != nil {
			return nil, 0, 0, false, err
		}
	}
	return live, major, walRate, host.IsLocalServer(ctx, conn), nil
}

// DatabaseBytes is the size of every database on the server at dsn but the
// templates: the data the server's memory caches.
func DatabaseBytes(ctx context.Context, dsn string) (int64, error) {
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return 0, problem.Wrap(err, "check --dsn", "cannot connect")
	}
	defer conn.Close(context.Background())
	var n int64
	err = conn.QueryRow(ctx, "SELECT coalesce(sum(pg_database_size(oid)), 0)::bigint FROM pg_database WHERE NOT datistemplate AND datallowconn").Scan(&n)
	return n, err
}
