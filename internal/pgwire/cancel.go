package pgwire

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Canceller sends a CancelRequest for a taken-over connection's backend,
// as pgconn's CancelRequest does for its own.
type Canceller struct {
	network, address string
	dial             pgconn.DialFunc
	pid              uint32
	secretKey        []byte
}

// Send asks the server to cancel what the backend runs. It is best effort:
// the run is ending either way.
func (k *Canceller) Send(ctx context.Context) error {
	if k.dial == nil {
		return nil
	}
	ctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer stop()
	nc, err := k.dial(ctx, k.network, k.address)
	if err != nil {
		return err
	}
	defer nc.Close()
	deadline, _ := ctx.Deadline()
	_ = nc.SetDeadline(deadline)
	buf, err := (&pgproto3.CancelRequest{ProcessID: k.pid, SecretKey: k.secretKey}).Encode(nil)
	if err != nil {
		return err
	}
	if _, err := nc.Write(buf); err != nil {
		return err
	}
	_, _ = nc.Read(buf[:1]) // the server closes when it has taken the request
	return nil
}
