package recorder

import (
	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// JoinGroup checks a run command's group flags and, when they name a group,
// makes the run that part of it: part is the workload's, o.Group the
// recorder's. A bad flag is a bad-input problem.
func (o *Options) JoinGroup(g group.Flags, part *workload.Part) error {
	p, opts, err := g.Options(!o.NoRecord)
	if err == nil && opts.Name != "" {
		*part, o.Group = p, opts
	}
	return err
}
