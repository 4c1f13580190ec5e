package pgbenchlog

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Output is what pgbench's summary on standard output says.
type Output struct {
	// Params are the summary's "name: value" lines, in order (scaling
	// factor, query mode, number of clients, ...).
	Params [][2]string
	// Scripts are the scripts' names by script_no: "SQL script N: NAME" of
	// a run with several, or the one "transaction type:".
	Scripts []string
	// TPS is the "tps = ... (without initial connection time)" figure;
	// HasTPS says the line was there.
	TPS    float64
	HasTPS bool
	// Processed is "number of transactions actually processed".
	Processed int64
	// Statements are -r's per-statement latencies, script by script.
	Statements []Statement
}

// Statement is one line of -r's "statement latencies in milliseconds"
// block: a command's mean latency, its failures and (with --max-tries other
// than 1) its retries.
type Statement struct {
	Script   int // the script's index in Scripts
	Command  string
	MeanMs   float64
	Failures int64
	Retries  int64
}

// summaryParams are the "name: value" lines of the summary pgoltp keeps.
var summaryParams = map[string]bool{
	"scaling factor": true, "query mode": true, "number of clients": true, "number of threads": true,
	"maximum number of tries": true, "duration": true, "number of transactions per client": true,
	"latency limit": true,
}

// ParseOutput reads pgbench's standard output (progress lines and anything
// else are passed over).
func ParseOutput(r io.Reader) Output {
	var out Output
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	single := ""
	inStatements, retries := false, false
	for sc.Scan() {
		line := sc.Text()
		if inStatements {
			if st, ok := statementLine(line, retries); ok {
				st.Script = max(len(out.Scripts)-1, 0)
				out.Statements = append(out.Statements, st)
				continue
			}
			inStatements = false
		}
		switch {
		case strings.Contains(line, "statement latencies in milliseconds"):
			inStatements, retries = true, strings.Contains(line, "retries")
		case strings.HasPrefix(line, "transaction type: "):
			single = scriptName(strings.TrimPrefix(line, "transaction type: "))
		case strings.HasPrefix(line, "SQL script "):
			if _, name, ok := strings.Cut(line, ": "); ok {
				out.Scripts = append(out.Scripts, scriptName(name))
			}
		case strings.HasPrefix(line, "tps = "):
			f := strings.Fields(line)
			if v, err := strconv.ParseFloat(f[2], 64); err == nil {
				out.TPS, out.HasTPS = v, true
			}
		case strings.HasPrefix(line, "number of transactions actually processed: "):
			v := strings.TrimPrefix(line, "number of transactions actually processed: ")
			v, _, _ = strings.Cut(v, "/")
			out.Processed, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		default:
			if name, value, ok := strings.Cut(line, ": "); ok && summaryParams[name] {
				out.Params = append(out.Params, [2]string{name, value})
			}
		}
	}
	if len(out.Scripts) == 0 && single != "" && single != "multiple scripts" {
		out.Scripts = []string{single}
	}
	return out
}

// statementLine reads "   0.123  0  [retries]  COMMAND", -r's line of one
// command (retries when the block's title says so).
func statementLine(line string, retries bool) (Statement, bool) {
	if !strings.HasPrefix(line, "   ") {
		return Statement{}, false
	}
	var st Statement
	mean, rest := nextField(line)
	failures, rest := nextField(rest)
	var err error
	if st.MeanMs, err = strconv.ParseFloat(mean, 64); err != nil {
		return Statement{}, false
	}
	if st.Failures, err = strconv.ParseInt(failures, 10, 64); err != nil {
		return Statement{}, false
	}
	if retries {
		var n string
		n, rest = nextField(rest)
		if st.Retries, err = strconv.ParseInt(n, 10, 64); err != nil {
			return Statement{}, false
		}
	}
	st.Command = strings.TrimSpace(rest)
	return st, st.Command != ""
}

// nextField cuts the first blank-separated field off s.
func nextField(s string) (string, string) {
	s = strings.TrimLeft(s, " ")
	i := strings.IndexByte(s, ' ')
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// scriptName is a script's name without pgbench's angle brackets:
// "<builtin: TPC-B (sort of)>" is "builtin: TPC-B (sort of)".
func scriptName(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") {
		return s[1 : len(s)-1]
	}
	return s
}
