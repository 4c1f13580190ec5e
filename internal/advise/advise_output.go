package advise

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/secret"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// WriteConf writes the advice as a postgresql.conf snippet: each setting with
// its reason and risk as comments above it.
func (a Advice) WriteConf(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# pgoltp advise, %s: PostgreSQL %d, %s memory, %.3g CPUs, %s storage, workload %s\n",
		time.Now().UTC().Format("2006-01-02"), a.Major, host.HumanBytes(a.Host.RAM), a.Host.CPUs, a.Host.Storage, a.Workload)
	fmt.Fprintf(&b, "# ranges validated against %s\n", a.ValidatedBy)
	for _, n := range a.Host.Notes {
		fmt.Fprintf(&b, "#   %s\n", n)
	}
	for _, r := range a.Items {
		b.WriteString("\n")
		fmt.Fprintf(&b, "# %s\n", r.Reason)
		fmt.Fprintf(&b, "# risk: %s (%s)\n", r.Risk, r.RiskText)
		if r.Adjusted != "" {
			fmt.Fprintf(&b, "# note: %s\n", r.Adjusted)
		}
		line := fmt.Sprintf("%s = %s", r.Name, confValue(r.Value))
		if r.Current != "" && r.Current != r.Value {
			line += fmt.Sprintf("\t# now %s", r.Current)
		}
		b.WriteString(line + "\n")
	}
	for _, n := range a.Notes {
		fmt.Fprintf(&b, "\n# %s", n)
	}
	if len(a.Notes) > 0 {
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSQL writes the advice as ALTER SYSTEM statements with a reload, and
// says which ones need a restart.
func (a Advice) WriteSQL(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "-- pgoltp advise: PostgreSQL %d, %s memory, %.3g CPUs, %s storage, workload %s\n",
		a.Major, host.HumanBytes(a.Host.RAM), a.Host.CPUs, a.Host.Storage, a.Workload)
	restart := false
	for _, r := range a.Items {
		fmt.Fprintf(&b, "ALTER SYSTEM SET %s = %s;  -- %s: %s\n", r.Name, sqlLiteral(r.Value), r.Risk, r.Reason)
		restart = restart || r.Risk == settings.Restart
	}
	b.WriteString("SELECT pg_reload_conf();\n")
	if restart {
		b.WriteString("-- settings marked restart take effect only after a server restart\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// confValue quotes a value for postgresql.conf when it is not a plain word or number.
func confValue(v string) string {
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return sqlLiteral(v)
		}
	}
	return v
}

// sqlLiteral quotes a value as a SQL string literal (doubling quotes), which
// ALTER SYSTEM and postgresql.conf both accept for every setting type.
func sqlLiteral(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// Write writes the advice in format: conf (a postgresql.conf snippet), sql
// (ALTER SYSTEM) or json.
func (a Advice) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		return secret.WriteJSON(w, a)
	case "sql":
		return a.WriteSQL(w)
	}
	return a.WriteConf(w)
}
