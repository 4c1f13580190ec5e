package lang

import (
	"fmt"
	"strconv"
	"strings"
)

// QueryMode is pgbench's -M: how SQL commands are sent.
type QueryMode int

// The query modes.
const (
	QuerySimple QueryMode = iota
	QueryExtended
	QueryPrepared
)

// firstLineMax is the size of pgbench's first_line buffer, terminator included.
const firstLineMax = 128

// finishSQL completes an SQL command as pgbench's postprocess_sql_command:
// the first line for reports, and :var replaced by $n for extended and
// prepared modes (in quotes too: pgbench does not look at quotes there).
func (c *Command) finishSQL() {
	first := c.SQL
	if len(first) > firstLineMax-1 {
		first = first[:firstLineMax-1]
	}
	if i := strings.IndexAny(first, "\n\r"); i >= 0 {
		first = first[:i]
	}
	c.FirstLine = first
	c.ParamSQL, c.Params = bindParams(c.SQL)
}

// variableAt returns the name of a variable reference ":name" at sql[i],
// as pgbench's parseVariable (a letter, underscore or non-ASCII byte first).
func variableAt(sql string, i int) string {
	j := i + 1
	if j >= len(sql) || !isAlpha(sql[j]) {
		return ""
	}
	for j < len(sql) && isAlnum(sql[j]) {
		j++
	}
	return sql[i+1 : j]
}

func bindParams(sql string) (string, []string) {
	var b strings.Builder
	var params []string
	for i := 0; i < len(sql); {
		if sql[i] != ':' {
			b.WriteByte(sql[i])
			i++
			continue
		}
		name := variableAt(sql, i)
		if name == "" {
			for i < len(sql) && sql[i] == ':' { // "::type" and the like
				b.WriteByte(':')
				i++
			}
			continue
		}
		params = append(params, name)
		b.WriteString("$" + strconv.Itoa(len(params)))
		i += 1 + len(name)
	}
	return b.String(), params
}

// Substitute replaces :name in sql with the variables' text for -M simple,
// as pgbench's assignVariables: unknown variables stay as written.
func Substitute(sql string, lookup func(name string) (string, bool)) string {
	if strings.IndexByte(sql, ':') < 0 {
		return sql
	}
	return string(AppendSubstituted(nil, sql, func(dst []byte, name string) ([]byte, bool) {
		v, ok := lookup(name)
		return append(dst, v...), ok
	}))
}

// AppendSubstituted appends sql with its variables substituted (as
// Substitute) to dst; appendVar appends a variable's text.
func AppendSubstituted(dst []byte, sql string, appendVar func(dst []byte, name string) ([]byte, bool)) []byte {
	for i := 0; i < len(sql); {
		if sql[i] != ':' {
			j := strings.IndexByte(sql[i:], ':')
			if j < 0 {
				return append(dst, sql[i:]...)
			}
			dst = append(dst, sql[i:i+j]...)
			i += j
			continue
		}
		name := variableAt(sql, i)
		if name == "" {
			for i < len(sql) && sql[i] == ':' {
				dst = append(dst, ':')
				i++
			}
			continue
		}
		var ok bool
		if dst, ok = appendVar(dst, name); !ok {
			dst = append(append(dst, ':'), name...)
		}
		i += 1 + len(name)
	}
	return dst
}

// CheckQueryMode checks the scripts' SQL commands for mode as pgbench does
// after parsing them all (at most 255 parameters per statement) and returns
// the prepared statements' names (P_0, P_1, ... across scripts, in order)
// keyed by command when mode is QueryPrepared.
func CheckQueryMode(mode QueryMode, scripts ...*Script) (map[*Command]string, error) {
	names := map[*Command]string{}
	n := 0
	for _, s := range scripts {
		for _, c := range s.Commands {
			if !c.IsSQL() || mode == QuerySimple {
				continue
			}
			if mode == QueryPrepared {
				names[c] = fmt.Sprintf("P_%d", n)
				n++
			}
			if len(c.Params) >= maxArgs {
				return nil, &ScriptError{Msg: fmt.Sprintf("statement has too many arguments (maximum is %d): %s", maxArgs-1, c.SQL)}
			}
		}
	}
	return names, nil
}
