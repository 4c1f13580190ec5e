package command

import (
	"strings"
)

// pgbenchArgs is what pgoltp needs to know of a pgbench command line: where
// it connects, whether it runs transactions and logs them, and what its log
// lines hold. It reads pgbench's options as pgbench's getopt_long does
// (clustered short options, attached values, --name=value, permutation).
type pgbenchArgs struct {
	host, port, user, dbname string
	initialize, log          bool
	aggregate, sampling      string
	logPrefix                string // "" = pgbench's default, pgbench_log in the working directory
	rate                     bool   // --rate: lines carry schedule_lag
	maxTries                 string // --max-tries: lines carry retries unless it is 1
	informational            bool   // --help, --version, --show-script, -b list: no run
}

// pgbenchShortWithValue are pgbench's short options that take a value.
const pgbenchShortWithValue = "bcDfFhIjLMpPRstTU"

// pgbenchLongWithValue are its long options that take a value.
var pgbenchLongWithValue = map[string]bool{
	"builtin": true, "client": true, "define": true, "file": true, "fillfactor": true, "host": true,
	"init-steps": true, "jobs": true, "latency-limit": true, "protocol": true, "port": true, "progress": true,
	"rate": true, "scale": true, "transactions": true, "time": true, "username": true, "aggregate-interval": true,
	"index-tablespace": true, "log-prefix": true, "max-tries": true, "partition-method": true, "partitions": true,
	"random-seed": true, "sampling-rate": true, "show-script": true, "tablespace": true,
}

// parsePgbenchArgs reads args (without the program name).
func parsePgbenchArgs(args []string) pgbenchArgs {
	var a pgbenchArgs
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			if i+1 < len(args) {
				a.dbname = args[i+1]
			}
			return a
		case strings.HasPrefix(arg, "--"):
			name, value, has := strings.Cut(arg[2:], "=")
			if pgbenchLongWithValue[name] && !has && i+1 < len(args) {
				i++
				value = args[i]
			}
			a.long(name, value)
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			i += a.shorts(arg[1:], args[i+1:])
		default:
			a.dbname = arg
		}
	}
	return a
}

// shorts reads a cluster of short options; it returns how many of the
// following arguments it consumed as a value.
func (a *pgbenchArgs) shorts(cluster string, rest []string) int {
	for j := 0; j < len(cluster); j++ {
		c := cluster[j]
		if !strings.ContainsRune(pgbenchShortWithValue, rune(c)) {
			a.flag(c)
			continue
		}
		value, used := cluster[j+1:], 0
		if value == "" && len(rest) > 0 {
			value, used = rest[0], 1
		}
		a.short(c, value)
		return used
	}
	return 0
}

func (a *pgbenchArgs) flag(c byte) {
	switch c {
	case 'i':
		a.initialize = true
	case 'l':
		a.log = true
	case 'V', '?':
		a.informational = true
	}
}

func (a *pgbenchArgs) short(c byte, value string) {
	switch c {
	case 'h':
		a.host = value
	case 'p':
		a.port = value
	case 'U':
		a.user = value
	case 'R':
		a.rate = true
	case 'b':
		a.informational = a.informational || value == "list"
	}
}

func (a *pgbenchArgs) long(name, value string) {
	switch name {
	case "initialize":
		a.initialize = true
	case "log":
		a.log = true
	case "help", "version", "show-script":
		a.informational = true
	case "builtin":
		a.informational = a.informational || value == "list"
	case "host":
		a.host = value
	case "port":
		a.port = value
	case "username":
		a.user = value
	case "rate":
		a.rate = true
	case "aggregate-interval":
		a.aggregate = value
	case "sampling-rate":
		a.sampling = value
	case "log-prefix":
		a.logPrefix = value
	case "max-tries":
		a.maxTries = value
	}
}

// connects says the command line names where pgbench connects.
func (a pgbenchArgs) connects() bool {
	return a.host != "" || a.port != "" || a.user != "" || a.dbname != ""
}

// dsn is the connection string of the server pgbench connects to, for the
// collectors (pgx reads what it leaves out from PG* variables, as libpq
// does): its dbname when that is a connection string, else key=value.
func (a pgbenchArgs) dsn() string {
	if strings.Contains(a.dbname, "=") || strings.Contains(a.dbname, "://") {
		return a.dbname
	}
	var parts []string
	for _, kv := range [][2]string{{"host", a.host}, {"port", a.port}, {"user", a.user}, {"dbname", a.dbname}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"='"+strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(kv[1])+"'")
		}
	}
	return strings.Join(parts, " ")
}
