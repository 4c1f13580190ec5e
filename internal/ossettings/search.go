package ossettings

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// The OS side of a search (tune --os): the OS settings this machine lets a
// search vary, the values each may take, and how a trial's values become
// the machine's. The originals are kept, applied and restored as an
// experiment's are (Experiment).

// SearchDim is one OS setting a search varies.
type SearchDim struct {
	Name    string   // a plan key: block.read_ahead_kb, vm.dirty_bytes, ...
	Start   string   // the value before the search (hugepages: off)
	Choices []string // the values tried, Start first
}

// HugepagesOff is hugepages' value when pgoltp reserves none: the machine
// as it was.
const HugepagesOff = "off"

// searchKeys are the keys a search varies, in the order it lists them.
var searchKeys = []string{"block.read_ahead_kb", "vm.dirty_bytes", "transparent_hugepage.enabled", "block.scheduler", Hugepages}

// readAheads and dirtyLimits are the values a search tries besides the
// machine's own: read-ahead from the kernel's default to what the studies
// use for a data volume, and dirty-page limits from 64MB to 4GB.
var (
	readAheads  = []string{"128", "512", "2048", "8192"}
	dirtyLimits = []int64{64 << 20, 256 << 20, 1 << 30, 4 << 30}
)

// SearchOptions are what the command allows (Options), whether the server
// may be restarted (huge pages need it), and the dimensions' start values
// when a search resumes: the stored ones, never what the machine shows now
// (a killed trial's leftovers).
type SearchOptions struct {
	Options
	Restart bool
	Start   map[string]string
}

// Search is the OS side of one search. A nil *Search does nothing.
type Search struct {
	exp  *Experiment
	Dims []SearchDim
	// Refused names each key left out of the search and why, for the
	// command to say up front.
	Refused []string
}

// PrepareSearch refuses the search's OS side without root, --allow-os or a
// server on this machine, and probes which keys this machine lets pgoltp
// write, changing nothing; live is the server's pg_settings (its data
// directory, shared memory). It fails when no key can be varied here.
func PrepareSearch(opts SearchOptions, live map[string]settings.Live) (*Search, error) {
	if err := Refuse(opts.Allow, opts.Remote); err != nil {
		return nil, err
	}
	e := &Experiment{machine: &Machine{DataDir: live["data_directory"].Setting}, steps: map[string]Values{}, opts: opts.Options,
		hugePage: hugePageSize(), sharedOverhead: sharedOverhead(live), sharedBuffers: live["shared_buffers"].Value()}
	s := &Search{exp: e}
	for _, name := range searchKeys {
		d, err := e.searchDim(name, opts)
		if err != nil {
			s.Refused = append(s.Refused, strings.Join(strings.Fields(err.Error()), " "))
			continue
		}
		s.Dims = append(s.Dims, d)
		e.steps[name] = PlanValues(map[string]string{name: d.Choices[1]}) // what Keep must keep
	}
	if len(s.Dims) == 0 {
		return nil, problem.BadInput("run tune without --os, or where these can be changed",
			"--os: no OS setting can be varied on this machine: %s", strings.Join(s.Refused, "; "))
	}
	return s, nil
}

// searchDim is key name as a dimension on this machine, or why it cannot
// be one.
func (e *Experiment) searchDim(name string, opts SearchOptions) (SearchDim, error) {
	m := e.machine
	if name == Hugepages {
		switch {
		case !opts.Restart:
			return SearchDim{}, fmt.Errorf("hugepages: needs a restart of the server, which pgoltp does only for its managed cluster")
		case e.hugePage <= 0:
			return SearchDim{}, fmt.Errorf("hugepages: this kernel has no huge pages")
		}
		if err := m.writable(NrHugepages); err != nil {
			return SearchDim{}, fmt.Errorf("hugepages: %v", err)
		}
		return SearchDim{Name: name, Start: HugepagesOff, Choices: []string{HugepagesOff, "auto"}}, nil
	}
	names := []string{name}
	if name == "vm.dirty_bytes" {
		names = WithPartners([]string{name, "vm.dirty_background_bytes"}) // all four are written back
	}
	for _, n := range names {
		if err := m.writable(n); err != nil {
			return SearchDim{}, err
		}
	}
	start := opts.Start[name]
	if start == "" {
		now, err := m.Read(name)
		if err != nil {
			return SearchDim{}, err
		}
		start = now[name]
	}
	d := SearchDim{Name: name, Start: start, Choices: []string{start}}
	for _, c := range e.tried(name) {
		if c != start && m.checkOne(name, c) == nil {
			d.Choices = append(d.Choices, c)
		}
	}
	if len(d.Choices) < 2 {
		return SearchDim{}, fmt.Errorf("%s: this machine offers no other value than %s", name, start)
	}
	return d, nil
}

// tried is the values the search tries for name besides the start.
func (e *Experiment) tried(name string) []string {
	switch name {
	case "block.read_ahead_kb":
		return readAheads
	case "vm.dirty_bytes":
		var out []string
		ram := memTotal()
		for _, b := range dirtyLimits {
			if ram == 0 || b <= ram/4 {
				out = append(out, strconv.FormatInt(b, 10))
			}
		}
		return out
	}
	words, _ := e.machine.choices(name) // transparent_hugepage.enabled, block.scheduler
	return slices.DeleteFunc(words, func(w string) bool { return w == "" })
}

// PlanValues are the OS settings among values, as a plan's os: block and
// the machine take them: vm.dirty_bytes brings vm.dirty_background_bytes, a
// quarter of it (the background limit must stay below the limit). Other
// names are left out.
func PlanValues(values map[string]string) Values {
	out := Values{}
	for n, v := range values {
		if !MachineWide(n) {
			continue
		}
		out[n] = v
		if b, err := strconv.ParseInt(v, 10, 64); n == "vm.dirty_bytes" && err == nil && b > 0 {
			out["vm.dirty_background_bytes"] = strconv.FormatInt(b/4, 10)
		}
	}
	return out
}

// layer is what a trial's values ask of the machine: the OS values that
// differ from the start.
func (s *Search) layer(values map[string]string) Values {
	changed := map[string]string{}
	for _, d := range s.Dims {
		if v, ok := values[d.Name]; ok && v != d.Start {
			changed[d.Name] = v
		}
	}
	return PlanValues(changed)
}

// Keep reads the originals of every key the search may write and has
// keeper store them durably (fsynced), before the first change; resumed,
// keeper returns the record's originals, not the machine's values.
func (s *Search) Keep(keeper Keeper) error {
	if s == nil {
		return nil
	}
	return s.exp.Keep(keeper)
}

// Apply puts a trial's OS values on the machine (the originals for every
// key at its start), huge pages sized for pg's shared_buffers, and reads
// them back. Like Experiment.Apply it refuses without root and --allow-os.
func (s *Search) Apply(values, pg map[string]string) error {
	if s == nil {
		return nil
	}
	return s.exp.Apply(s.exp.arm(pg, s.layer(values)))
}

// Restore writes the originals back and reads them back (see
// Experiment.Restore).
func (s *Search) Restore(keeper Keeper) (ok bool, notes []string) {
	if s == nil {
		return true, nil
	}
	return s.exp.Restore(keeper)
}

// Originals are the values before the search, as kept.
func (s *Search) Originals() Values {
	if s == nil {
		return nil
	}
	return s.exp.Originals()
}

// memTotal is the machine's memory in bytes (0: unknown).
func memTotal() int64 { return meminfoBytes("MemTotal:") }
