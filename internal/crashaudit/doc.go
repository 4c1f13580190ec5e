// Package crashaudit holds the durability audit of `pgoltp experiment
// --crash`: it runs the ledger workload, whose driver logs every
// acknowledged commit, with the settings under audit, kills the server
// (SIGKILL) mid-run, restarts it and counts the acknowledged commits that
// are gone; then it puts the settings back (internal/restore).
package crashaudit
