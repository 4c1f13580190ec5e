package tune

// The OS dimensions of a search (tune --os, issue 28): read-ahead, dirty
// bytes, transparent huge pages, the I/O scheduler and huge pages, as far
// as this machine lets pgoltp write them (internal/ossettings says which).
// They are dimensions like settings: in every trial's values, in the
// ablation and the importance; each run puts them on the machine through
// ossettings before the server's settings, and the originals, kept in the
// lab's record before the first change, are written back and read back at
// the end.

import (
	"fmt"
	"slices"

	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/search"
)

// withOS is the space with the OS dimensions after the settings.
func (s *Space) withOS(dims []ossettings.SearchDim) (*Space, error) {
	if len(dims) == 0 {
		return s, nil
	}
	out := &Space{dims: slices.Clone(s.dims), limits: s.limits, major: s.major}
	sdims := slices.Clone(s.Dims())
	for _, d := range dims {
		out.dims = append(out.dims, dim{name: d.Name, choices: d.Choices, machine: true, start: d.Start})
		sdims = append(sdims, search.Choice(d.Name, d.Choices...))
	}
	sp, err := search.NewSpace(sdims...)
	if err != nil {
		return nil, err
	}
	out.Space = sp
	return out, nil
}

// pgOnly is values without the OS dimensions: what the server is given.
func pgOnly(values map[string]string) map[string]string {
	out := make(map[string]string, len(values))
	for n, v := range values {
		if !ossettings.MachineWide(n) {
			out[n] = v
		}
	}
	return out
}

// pgNames is names without the OS dimensions.
func pgNames(names []string) []string {
	return slices.DeleteFunc(slices.Clone(names), ossettings.MachineWide)
}

// machineWideCount says how many of names are OS settings: " (4 of them
// machine-wide)", or "".
func machineWideCount(names []string) string {
	if n := len(names) - len(pgNames(names)); n > 0 {
		return fmt.Sprintf(" (%d of them machine-wide)", n)
	}
	return ""
}

// runSettings is the server's settings for a run of values: huge pages
// reserved (hugepages: auto) are used only with huge_pages=on.
func runSettings(values map[string]string) map[string]string {
	out := pgOnly(values)
	if values[ossettings.Hugepages] == "auto" {
		out["huge_pages"] = "on"
	}
	return out
}

// applyOS puts the OS values of a run on the machine (the originals for
// every dimension at its start) and reads them back.
func (s *session) applyOS(values, pg map[string]string) error {
	if s.OS == nil {
		return nil
	}
	if err := s.OS.Apply(values, pg); err != nil {
		return fmt.Errorf("machine-wide OS settings: %w", err)
	}
	return nil
}

// restoreOS writes the machine's originals back and reads them back, once;
// on failure the lab's record stays (for 'pgoltp restore') and a note says
// so.
func (s *session) restoreOS(res *Result) bool {
	if s.OS == nil || s.osRestored {
		return true
	}
	ok, notes := s.OS.Restore(s.Pending)
	res.Notes = append(res.Notes, notes...)
	s.osRestored = ok
	return ok
}

// hasOS reports whether the stored search varied OS settings (tune --os):
// resumed, it does again.
func (s *State) hasOS() bool {
	return slices.ContainsFunc(s.Dimensions, func(d search.Dimension) bool { return ossettings.MachineWide(d.Name) })
}
