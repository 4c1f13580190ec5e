package advise

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// AdviseOptions are the choices of `pgoltp advise` as given on the command
// line.
type AdviseOptions struct {
	RAM         string // e.g. 16GB; "": detected
	CPUs        float64
	Storage     string
	Connections int
	Workload    string
	Major       int
	Format      string // conf, sql or json
	MeasureWAL  time.Duration
	WALRate     string // e.g. 12MB (per second); "": not given
	Offline     bool
	Run         string // a stored run to size WAL settings from

	ramBytes int64   // RAM, read by Validate
	walBytes float64 // WALRate, read by Validate
}

// Validate checks every option and reads the sizes: the only place they are
// checked. With json the output format is json whatever --format says.
func (o *AdviseOptions) Validate(json bool) error {
	given := o.Format
	if json {
		o.Format = "json"
	}
	if o.Format != "conf" && o.Format != "sql" && o.Format != "json" {
		return problem.BadInput("use --format conf, sql or json", "unknown output format %q", given)
	}
	switch o.Workload {
	case WorkloadTPCC, WorkloadTPCB, WorkloadOLTP:
	default:
		return problem.BadInput("use --workload tpcc, tpcb or oltp", "unknown workload %q", o.Workload)
	}
	if o.Storage != "" && o.Storage != host.StorageSSD && o.Storage != host.StorageHDD && o.Storage != host.StorageNVMe {
		return problem.BadInput("use --storage ssd, hdd or nvme", "unknown storage %q", o.Storage)
	}
	if o.Major != 0 && (o.Major < OldestMajor || o.Major > NewestMajor) {
		return problem.BadInput(fmt.Sprintf("use --pg %d to %d", OldestMajor, NewestMajor), "PostgreSQL %d is not supported", o.Major)
	}
	if o.CPUs < 0 || o.Connections < 0 {
		return problem.BadInput("give positive numbers", "--cpus and --connections cannot be negative")
	}
	if o.WALRate != "" {
		b, err := settings.ToUnit(o.WALRate, "B")
		if err != nil || b <= 0 || !strings.ContainsAny(o.WALRate, "BkMGT") {
			return problem.BadInput("give bytes per second with a unit, e.g. --wal-rate 12MB", "bad --wal-rate %q", o.WALRate)
		}
		o.walBytes = b
	}
	if o.RAM != "" {
		b, err := settings.ToUnit(o.RAM, "B")
		if err != nil || b <= 0 || !strings.ContainsAny(o.RAM, "BkMGT") {
			return problem.BadInput("give a size with a unit, e.g. --ram 16GB", "bad --ram %q", o.RAM)
		}
		o.ramBytes = int64(b)
	}
	return nil
}

// Input is the advise input the options give before a server is read.
func (o *AdviseOptions) Input() AdviseInput {
	return AdviseInput{Connections: o.Connections, Workload: o.Workload, Major: o.Major, WALBytesPerSecond: o.walBytes}
}

// Override puts the host figures given on the command line over the
// detected ones, noting where each came from.
func (o *AdviseOptions) Override(h *host.Host) {
	if o.ramBytes > 0 {
		h.RAM = o.ramBytes
		h.Notes = append(h.Notes, "memory: "+o.RAM+" from --ram")
	}
	if o.CPUs > 0 {
		h.CPUs = o.CPUs
		h.Notes = append(h.Notes, fmt.Sprintf("cpus: %g from --cpus", o.CPUs))
	}
	if o.Storage != "" {
		h.Storage = o.Storage
		h.Notes = append(h.Notes, "storage: "+o.Storage+" from --storage")
	}
}

// FromRun sizes the WAL settings in from what a stored run measured, and
// says so in the note.
func (o *AdviseOptions) FromRun(in *AdviseInput, past PastRun) (note string, err error) {
	if past.WALBytesPerSecond <= 0 {
		return "", problem.BadInput("pick a run that wrote WAL", "run %s has no WAL rate samples", past.ID)
	}
	in.WALBytesPerSecond = past.WALBytesPerSecond
	return fmt.Sprintf("WAL rate %.1fMB/s measured by run %s (%s)", past.WALBytesPerSecond/1e6, past.ID, past.Workload), nil
}

// FromServer fills in what the server at dsn says: its major (a different
// --pg is bad input), its pg_settings and, with MeasureWAL, its WAL rate. It
// returns a note on the WAL rate sampled ("" if none) and one when the server
// runs elsewhere while host figures were left to detection.
func (o *AdviseOptions) FromServer(ctx context.Context, dsn string, in *AdviseInput) (walNote, remoteNote string, err error) {
	live, major, rate, local, err := ReadServer(ctx, dsn, o.MeasureWAL)
	if err != nil {
		return "", "", err
	}
	if o.Major != 0 && o.Major != major {
		return "", "", problem.BadInput(fmt.Sprintf("drop --pg or use --pg %d", major), "--pg %d but the server runs PostgreSQL %d", o.Major, major)
	}
	in.Major, in.Live = major, live
	if !local && (o.RAM == "" || o.CPUs == 0 || o.Storage == "") {
		remoteNote = "the server does not run on this host: give its --ram, --cpus and --storage, the detected ones are this machine's"
	}
	if rate > 0 {
		in.WALBytesPerSecond = rate
		walNote = fmt.Sprintf("WAL rate %.1fMB/s sampled for %s", rate/1e6, o.MeasureWAL)
	}
	return walNote, remoteNote, nil
}
