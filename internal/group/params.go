package group

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
)

// registerParams stores the parameters this part runs with, before its row:
// whoever sees the part registered can read them.
func (m *Member) registerParams(ctx context.Context, runID string) error {
	if m.opts.Params == nil {
		return nil
	}
	b, err := json.Marshal(m.opts.Params)
	if err != nil {
		return err
	}
	return m.st.SetGroupParams(ctx, m.opts.Name, runID, string(b))
}

// checkParams refuses this part (recorded as gave-up, so that the others do
// not count it) when its parameters differ from those of the first part
// registered: the earliest joined of the parts waiting. Parts run with
// different isolation, duration or mode would be merged into one result
// that no single setting produced.
func (m *Member) checkParams(ctx context.Context, runID string) error {
	if m.opts.Params == nil {
		return nil
	}
	_, parts, err := m.st.Group(ctx, m.opts.Name)
	if err != nil {
		return err
	}
	first := firstRegistered(parts, m.serverNow())
	if first == nil || first.RunID == runID {
		return nil
	}
	registered, err := m.st.GroupParams(ctx, m.opts.Name)
	if err != nil {
		return err
	}
	var theirs []workload.Param
	if err := json.Unmarshal([]byte(registered[first.RunID]), &theirs); err != nil {
		return nil // registered by a pgoltp that did not store its parameters
	}
	name, mine, its, differs := firstDifference(m.opts.Params, theirs)
	if !differs {
		return nil
	}
	what := fmt.Sprintf("part %s of group %s runs with %s %s, but part %d (the first registered) with %s %s",
		m.opts.Part, m.opts.Name, name, mine, first.Part, name, its)
	m.giveUp(ctx, "refused: "+what)
	return problem.BadInput("give every part of a group the same "+name+", or use a new --group name", "%s", what)
}

// paramsAgree says whether the waiting parts registered the same
// parameters. The group does not start while they differ: the part that
// differs is being refused by its own Join (checkParams) and drops out, so
// that the others never start with it even if they saw it before it did.
func (m *Member) paramsAgree(ctx context.Context, parts []store.GroupPart) (bool, error) {
	if m.opts.Params == nil {
		return true, nil
	}
	registered, err := m.st.GroupParams(ctx, m.opts.Name)
	if err != nil {
		return false, err
	}
	now, seen := m.serverNow(), ""
	for _, p := range parts {
		params, ok := registered[p.RunID]
		if !ok || Effective(p, now) != StatusWaiting {
			continue
		}
		if seen == "" {
			seen = params
		} else if params != seen {
			return false, nil
		}
	}
	return true, nil
}

// firstRegistered is the earliest joined part still waiting (ties: the
// lower part number); nil if none.
func firstRegistered(parts []store.GroupPart, now time.Time) *store.GroupPart {
	var first *store.GroupPart
	for i, p := range parts {
		if Effective(p, now) != StatusWaiting {
			continue
		}
		if first == nil || p.Joined.Before(first.Joined) || p.Joined.Equal(first.Joined) && p.Part < first.Part {
			first = &parts[i]
		}
	}
	return first
}

// firstDifference is the first of mine whose value differs from theirs
// (one theirs lacks counts, shown as "(none)").
func firstDifference(mine, theirs []workload.Param) (name, my, their string, differs bool) {
	have := map[string]string{}
	for _, p := range theirs {
		have[p.Name] = p.Value
	}
	for _, p := range mine {
		v, ok := have[p.Name]
		if !ok {
			v = "(none)"
		}
		if v != p.Value {
			return p.Name, quoteEmpty(p.Value), quoteEmpty(v), true
		}
	}
	return "", "", "", false
}

func quoteEmpty(v string) string {
	if v == "" {
		return `""`
	}
	return v
}
