package doctor

import (
	"context"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// DoctorAt connects to dsn and runs Doctor, bounded like ReadServer: a server
// that stops answering fails the doctor, it does not hang it.
func DoctorAt(ctx context.Context, dsn string, opts DoctorOptions) (*Diagnosis, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute+opts.Sample)
	defer cancel()
	conn, err := adminconn.Connect(ctx, dsn)
	if err != nil {
		return nil, problem.Wrap(err, "check the server", "cannot connect")
	}
	defer conn.Close(context.Background())
	return Doctor(ctx, conn, opts)
}
