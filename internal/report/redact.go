package report

import (
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/store"
)

// redacted returns r as every report shows it: parameters, notes, settings
// and facts through secret.Redact. The store redacts at write and read too;
// this keeps a run that never went through the store (or was stored by an
// older pgoltp) from showing a secret. r itself is left as it is.
func redacted(r *store.Run) *store.Run {
	c := *r
	c.Params = make([]store.KV, len(r.Params))
	for i, kv := range r.Params {
		c.Params[i] = store.KV{Name: kv.Name, Value: secret.Redact(kv.Name, kv.Value)}
	}
	c.Notes = make([]string, len(r.Notes))
	for i, n := range r.Notes {
		c.Notes[i] = secret.Redact("", n)
	}
	if r.Samples != nil {
		s := *r.Samples
		s.Settings = make([]collect.Setting, len(s.Settings))
		for i, st := range r.Samples.Settings {
			s.Settings[i] = st.Redacted()
		}
		s.Facts = make([]collect.Fact, len(s.Facts))
		for i, f := range r.Samples.Facts {
			f.Value = secret.Redact(f.Name, f.Value)
			s.Facts[i] = f
		}
		c.Samples = &s
	}
	return &c
}
