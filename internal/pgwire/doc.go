// Package pgwire is the low level shared by pgoltp's two pgbench-style run
// engines (internal/pgbench and tpcb run's event loop): taking an open,
// idle pgconn connection over down to its socket, the raw system calls a
// poll loop makes on it, the CancelRequest for its backend, and the few
// protocol messages a benchmark sends, appended by hand to reused buffers,
// with the backend's answers split in place. Nothing here allocates on a
// transaction's path.
package pgwire
