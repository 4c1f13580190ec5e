package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/pgoltp/pgoltp/internal/javaprops"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A BenchmarkSQL 5 or 6 properties file (--props) read as the flags of
// 'tpcc load' or 'tpcc run': each key it knows becomes the flag of the same
// meaning unless that flag is on the command line, each other key is listed
// with why it is not used, and the password goes to the connection through
// PGPASSWORD, never into a DSN that is printed or stored.

// propsFlag is one flag a properties file sets, and the keys it comes from.
type propsFlag struct {
	flag, value, from string
}

// propsTranslation is what a properties file means for one command.
type propsTranslation struct {
	flags    []propsFlag
	ignored  []string // "key: why"
	password string
	version  string // "BenchmarkSQL 5" or "BenchmarkSQL 6"
}

// propsIgnored says why each key pgoltp does not use is not needed.
var propsIgnored = map[string]string{
	"driver":                      "the JDBC driver class: pgoltp speaks PostgreSQL's protocol itself",
	"resultDirectory":             "pgoltp keeps every run in the lab's results store ('pgoltp runs', 'pgoltp report')",
	"osCollectorScript":           "pgoltp's collectors sample the OS and PostgreSQL around every recorded run",
	"osCollectorInterval":         "pgoltp's collectors sample every second",
	"osCollectorSSHAddr":          "pgoltp's collectors sample the machine they run on and the server through SQL",
	"osCollectorDevices":          "pgoltp's collectors sample every block device",
	"monkeys":                     "BenchmarkSQL's Java threads for terminal I/O: pgoltp's terminals are goroutines",
	"rampupSUTMins":               "pgoltp opens its connections before the run starts",
	"rampupTerminalMins":          "pgoltp starts its terminals together; --ramp is the warm-up before measuring",
	"restartSUTThreadProbability": "pgoltp keeps its connections for the whole run",
	"maxDeliveryBGPerWarehouse":   "pgoltp's delivery workers take queued Deliveries in order",
	"traceTerminalIO":             "a BenchmarkSQL debugging switch",
}

// propsRunOnly and propsLoadOnly are keys one of the two commands uses.
var (
	propsRunOnly = map[string]bool{"application": true, "terminals": true, "runTxnsPerTerminal": true,
		"runMins": true, "limitTxnsPerMin": true, "terminalWarehouseFixed": true, "newOrderWeight": true,
		"paymentWeight": true, "orderStatusWeight": true, "deliveryWeight": true, "stockLevelWeight": true,
		"sutThreads": true, "maxDeliveryBGThreads": true, "rampupMins": true, "reportIntervalSecs": true,
		"keyingTimeMultiplier": true, "thinkTimeMultiplier": true}
	propsLoadOnly = map[string]bool{"loadWorkers": true}
)

// addPropsFlag declares --props on a tpcc command.
func addPropsFlag(f *pflag.FlagSet, path *string) {
	f.StringVar(path, "props", "", "read a BenchmarkSQL 5 or 6 properties file (conn, user, password, warehouses, terminals, runMins, weights, ...) as this command's flags; flags given on the command line win, and the mapping is printed")
}

// applyProps reads the properties file at path (if any) as the flags of
// cmd ("load" or "run"), prints the mapping on stderr, and sets the flags
// the command line did not give.
func applyProps(cmd *cobra.Command, path, use string) error {
	if path == "" {
		return nil
	}
	file, err := os.Open(path)
	if err != nil {
		return problem.BadInput("give the path of a BenchmarkSQL properties file", "--props: %v", err)
	}
	defer file.Close()
	props, err := javaprops.Parse(file)
	if err != nil {
		return problem.BadInput("fix the file", "--props %s: %v", path, err)
	}
	tr, err := translateProps(props, use)
	if err != nil {
		return problem.BadInput("fix the file or leave the key out", "--props %s: %v", path, err)
	}
	f := cmd.Flags()
	for _, pf := range tr.flags {
		if f.Lookup(pf.flag) == nil {
			return fmt.Errorf("--props: 'tpcc %s' has no flag --%s", use, pf.flag)
		}
	}
	printProps(cmd.ErrOrStderr(), path, use, tr, f)
	dsnGiven := f.Changed("dsn")
	for _, pf := range tr.flags {
		if f.Changed(pf.flag) {
			continue
		}
		if err := f.Set(pf.flag, pf.value); err != nil {
			return problem.BadInput("fix the file", "--props %s: %s gives --%s %q: %v", path, pf.from, pf.flag, pf.value, err)
		}
	}
	if tr.password != "" && os.Getenv("PGPASSWORD") == "" && !dsnGiven {
		return os.Setenv("PGPASSWORD", tr.password)
	}
	return nil
}

// printProps says which key became which flag and which keys are not used.
func printProps(w io.Writer, path, use string, tr propsTranslation, f *pflag.FlagSet) {
	fmt.Fprintf(w, "%s (%s) read as 'pgoltp tpcc %s' flags:\n", path, tr.version, use)
	for _, pf := range tr.flags {
		note := ""
		if f.Changed(pf.flag) {
			note = "   (not used: --" + pf.flag + " is on the command line)"
		} else if pf.flag == "dsn" && tr.password != "" {
			note = "   (the password goes to the server through PGPASSWORD, never shown)"
		}
		fmt.Fprintf(w, "  %-28s --%s %s%s\n", pf.from, pf.flag, pf.value, note)
	}
	for _, ig := range tr.ignored {
		fmt.Fprintf(w, "  not used: %s\n", ig)
	}
}

// translateProps maps the properties to the flags of use ("load" or "run").
func translateProps(props []javaprops.Property, use string) (propsTranslation, error) {
	tr := propsTranslation{version: "BenchmarkSQL 5"}
	get := func(key string) (string, bool) {
		p, ok := javaprops.Last(props, key)
		return strings.TrimSpace(p.Value), ok
	}
	if _, v6 := get("sutThreads"); v6 {
		tr.version = "BenchmarkSQL 6"
	}
	if db, ok := get("db"); ok && !strings.EqualFold(db, "postgres") {
		return tr, fmt.Errorf("db=%s: pgoltp drives PostgreSQL only (db=postgres)", db)
	}
	if err := tr.connection(get); err != nil {
		return tr, err
	}
	var err error
	if use == "load" {
		err = tr.loadKeys(get)
	} else {
		err = tr.runKeys(get)
	}
	if err != nil {
		return tr, err
	}
	tr.listIgnored(props, use)
	return tr, nil
}

// connection maps conn and user to --dsn, and keeps the password aside.
func (tr *propsTranslation) connection(get func(string) (string, bool)) error {
	tr.password, _ = get("password")
	conn, ok := get("conn")
	if !ok {
		return nil
	}
	user, _ := get("user")
	dsn, dropped, err := jdbcToDSN(conn, user)
	if err != nil {
		return err
	}
	from := "conn"
	if user != "" {
		from = "conn, user"
	}
	tr.flags = append(tr.flags, propsFlag{"dsn", dsn, from})
	for _, p := range dropped {
		tr.ignored = append(tr.ignored, "conn parameter "+p+": no libpq equivalent")
	}
	return nil
}

// jdbcParams maps the JDBC driver's connection parameters to libpq's.
var jdbcParams = map[string]string{
	"sslmode": "sslmode", "ApplicationName": "application_name", "connectTimeout": "connect_timeout",
	"options": "options", "targetServerType": "target_session_attrs",
}

// jdbcToDSN turns jdbc:postgresql://host[:port][,host...]/db?k=v (or
// jdbc:postgresql:db) into a postgres:// URL; parameters libpq does not
// have are returned to be listed.
func jdbcToDSN(conn, user string) (dsn string, dropped []string, err error) {
	rest, ok := strings.CutPrefix(conn, "jdbc:postgresql:")
	if !ok {
		return "", nil, fmt.Errorf("conn=%s is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)", conn)
	}
	hosts, db := "localhost", rest
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		hosts, db, _ = strings.Cut(after, "/")
	}
	db, query, _ := strings.Cut(db, "?")
	if hosts == "" || db == "" {
		return "", nil, fmt.Errorf("conn=%s names no host or database", conn)
	}
	params, err := url.ParseQuery(query)
	if err != nil {
		return "", nil, fmt.Errorf("conn=%s: %v", conn, err)
	}
	out := url.Values{}
	for k, vs := range params {
		if pk, ok := jdbcParams[k]; ok {
			out.Set(pk, vs[len(vs)-1])
			continue
		}
		dropped = append(dropped, k)
	}
	sort.Strings(dropped)
	u := url.URL{Scheme: "postgres", Host: hosts, Path: "/" + db, RawQuery: out.Encode()}
	if user != "" {
		u.User = url.User(user)
	}
	return u.String(), dropped, nil
}
