package crashaudit

import (
	"github.com/pgoltp/pgoltp/internal/field"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/settings"
	"github.com/pgoltp/pgoltp/internal/workload/ledger"
)

// CrashOptions are the choices of `pgoltp experiment --crash` as given on
// the command line.
type CrashOptions struct {
	Set         []string // name=value settings to audit
	KillAfter   time.Duration
	Clients     int
	AllowUnsafe bool

	values map[string]string // Set, read by Validate
}

// Validate reads the settings and checks every option: the only place they
// are checked.
func (o *CrashOptions) Validate() error {
	sets, err := settings.ParseAssignments(o.Set)
	if err != nil {
		return field.Bad("Set", err.Error(), "is not name=value", "name=value, e.g. synchronous_commit=off").Because(err)
	}
	o.values = map[string]string{}
	for _, a := range sets {
		o.values[strings.ToLower(a.Name)] = a.Value
	}
	if err := settings.CheckApplicable(o.values); err != nil {
		return field.Bad("Set", "", err.Error(), "only settings pgoltp may set").Because(err)
	}
	if o.KillAfter < time.Second {
		return field.Bad("KillAfter", o.KillAfter.String(), "is too short to acknowledge any commits", "1s or more")
	}
	if o.Clients < 1 {
		return field.Bad("Clients", strconv.Itoa(o.Clients), "is too few", "1 or more")
	}
	return nil
}

// Audit is the durability audit the options ask for, of server with the
// ledger in dsn.
func (o *CrashOptions) Audit(server Crasher, dsn string, log io.Writer) *CrashAudit {
	return &CrashAudit{Server: server, DSN: dsn, Settings: o.values, AllowUnsafe: o.AllowUnsafe,
		Workload: ledger.Ledger{Clients: o.Clients, Accounts: 10000}, KillAfter: o.KillAfter, Log: log}
}
