package advise

import (
	"context"
	"fmt"
	"github.com/pgoltp/pgoltp/internal/field"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// Profile is a workload the advisor knows beyond generic OLTP, as the
// command gives it from the registry.
type Profile struct {
	Name    string // the registry's kind
	HotRows bool   // see AdviseInput.HotRows
}

// AdviseOptions are the choices of `pgoltp advise` as given on the command
// line.
type AdviseOptions struct {
	Profiles    []Profile // the workloads Workload may name besides WorkloadOLTP
	RAM         string    // e.g. 16GB; "": detected
	CPUs        float64
	Storage     string
	Connections int
	Workload    string
	Major       int
	Format      string // conf, sql, json or os-plan
	MeasureWAL  time.Duration
	WALRate     string // e.g. 12MB (per second); "": not given
	Offline     bool
	Run         string // a stored run to size WAL settings from
	DataSize    string // the databases' size, e.g. 50GB; "": the server's (0 offline)

	ramBytes  int64   // RAM, read by Validate
	dataBytes int64   // DataSize, read by Validate
	walBytes  float64 // WALRate, read by Validate
}

// Validate checks every option and reads the sizes: the only place they are
// checked. With json the output format is json whatever --format says.
func (o *AdviseOptions) Validate(json bool) error {
	given := o.Format
	if json {
		o.Format = "json"
	}
	if o.Format != "conf" && o.Format != "sql" && o.Format != "json" && o.Format != "os-plan" {
		return field.Bad("Format", strconv.Quote(given), "is not an output format", "conf, sql, json or os-plan")
	}
	if _, ok := o.profile(); !ok {
		return field.Bad("Workload", strconv.Quote(o.Workload), "is not a workload profile", o.ProfileList())
	}
	if o.Storage != "" && o.Storage != host.StorageSSD && o.Storage != host.StorageHDD && o.Storage != host.StorageNVMe {
		return field.Bad("Storage", strconv.Quote(o.Storage), "is not a storage class", "ssd, hdd or nvme")
	}
	if o.Major != 0 && (o.Major < OldestMajor || o.Major > NewestMajor) {
		return field.Bad("Major", strconv.Itoa(o.Major), "is not a supported PostgreSQL major", fmt.Sprintf("%d to %d", OldestMajor, NewestMajor))
	}
	if o.CPUs < 0 {
		return field.Bad("CPUs", fmt.Sprint(o.CPUs), "is negative", "0 (detected) or more")
	}
	if o.Connections < 0 {
		return field.Bad("Connections", strconv.Itoa(o.Connections), "is negative", "0 (not known) or more")
	}
	if o.WALRate != "" {
		b, err := settings.ToUnit(o.WALRate, "B")
		if err != nil || b <= 0 || !strings.ContainsAny(o.WALRate, "BkMGT") {
			return field.Bad("WALRate", strconv.Quote(o.WALRate), "is not bytes per second with a unit", "12MB or another size with a unit (per second)")
		}
		o.walBytes = b
	}
	if o.RAM != "" {
		b, err := settings.ToUnit(o.RAM, "B")
		if err != nil || b <= 0 || !strings.ContainsAny(o.RAM, "BkMGT") {
			return field.Bad("RAM", strconv.Quote(o.RAM), "is not a size with a unit", "16GB or another size with a unit")
		}
		o.ramBytes = int64(b)
	}
	if o.DataSize != "" {
		b, err := settings.ToUnit(o.DataSize, "B")
		if err != nil || b <= 0 || !strings.ContainsAny(o.DataSize, "BkMGT") {
			return field.Bad("DataSize", strconv.Quote(o.DataSize), "is not a size with a unit", "50GB or another size with a unit")
		}
		o.dataBytes = int64(b)
	}
	return nil
}

// ProfileList is the names Workload takes, as a list says them: "a, b or oltp".
func (o *AdviseOptions) ProfileList() string {
	if len(o.Profiles) == 0 {
		return WorkloadOLTP
	}
	var names []string
	for _, p := range o.Profiles {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ") + " or " + WorkloadOLTP
}

// profile is the Profile Workload names (the zero Profile for WorkloadOLTP);
// ok is false when it names none.
func (o *AdviseOptions) profile() (Profile, bool) {
	if o.Workload == WorkloadOLTP {
		return Profile{Name: WorkloadOLTP}, true
	}
	for _, p := range o.Profiles {
		if p.Name == o.Workload {
			return p, true
		}
	}
	return Profile{}, false
}

// Input is the advise input the options give before a server is read.
func (o *AdviseOptions) Input() AdviseInput {
	p, _ := o.profile()
	return AdviseInput{Connections: o.Connections, Workload: o.Workload, HotRows: p.HotRows, Major: o.Major, WALBytesPerSecond: o.walBytes,
		DataBytes: o.dataBytes}
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
		return "", "", field.Bad("Major", strconv.Itoa(o.Major), fmt.Sprintf("is not the server's PostgreSQL %d", major), fmt.Sprintf("%d or leave it out", major))
	}
	in.Major, in.Live = major, live
	if in.DataBytes == 0 {
		if in.DataBytes, err = DatabaseBytes(ctx, dsn); err != nil {
			return "", "", err
		}
	}
	if !local && (o.RAM == "" || o.CPUs == 0 || o.Storage == "") {
		remoteNote = "the server does not run on this host: give its --ram, --cpus and --storage, the detected ones are this machine's"
	}
	if rate > 0 {
		in.WALBytesPerSecond = rate
		walNote = fmt.Sprintf("WAL rate %.1fMB/s sampled for %s", rate/1e6, o.MeasureWAL)
	}
	return walNote, remoteNote, nil
}
