package lang

import (
	"fmt"
	"strings"
)

// Meta identifies a backslash command.
type Meta uint8

// The meta-commands; MetaNone marks an SQL command.
const (
	MetaNone Meta = iota
	MetaSet
	MetaSetShell
	MetaShell
	MetaSleep
	MetaIf
	MetaElif
	MetaElse
	MetaEndif
	MetaGset
	MetaAset
	MetaStartPipeline
	MetaSyncPipeline
	MetaEndPipeline
)

var metaNames = map[string]Meta{
	"set": MetaSet, "setshell": MetaSetShell, "shell": MetaShell, "sleep": MetaSleep,
	"if": MetaIf, "elif": MetaElif, "else": MetaElse, "endif": MetaEndif,
	"gset": MetaGset, "aset": MetaAset, "startpipeline": MetaStartPipeline,
	"syncpipeline": MetaSyncPipeline, "endpipeline": MetaEndPipeline,
}

// Command is one command of a script, ready for an engine to run.
type Command struct {
	// SQL commands
	SQL       string   // the text as written (pgbench -M simple substitutes :var at run time)
	ParamSQL  string   // the text with :var replaced by $1, $2, ... (-M extended, prepared)
	Params    []string // the variables bound to $1, $2, ...
	Compound  int      // number of queries in it (\; separates them)
	ResultSet Meta     // MetaGset or MetaAset when \gset or \aset follows, else MetaNone
	Prefix    string   // \gset/\aset variable prefix

	// Meta-commands
	Meta Meta
	Argv []string // the words, argv[0] being the command's name as written
	Var  string   // \set's variable
	Expr *Expr    // \set's, \if's and \elif's expression
	// Jump and Endif serve \if, \elif and \else (indexes into Commands).
	// When an \if's or \elif's condition is false, go to Jump: the next
	// \elif (evaluate it), the \else (run what follows it) or the \endif.
	// When a branch that ran reaches an \elif or \else, go to Endif (an
	// \else's Jump is its Endif).
	Jump  int
	Endif int

	Line      int    // line of the command's start (meta-commands)
	FirstLine string // short text for error messages and -r reports
}

// IsSQL says whether c is an SQL command.
func (c *Command) IsSQL() bool { return c.Meta == MetaNone }

// Script is a parsed pgbench script.
type Script struct {
	Name     string
	Commands []*Command
}

// maxArgs is pgbench's MAX_ARGS.
const maxArgs = 256

// ParseScript parses a script as pgbench does; name is what errors and
// reports call it (a file name or builtin description).
func ParseScript(name, src string) (*Script, error) {
	p := &scriptParser{name: name, sc: sqlScanner{src: src}}
	if err := p.run(); err != nil {
		return nil, err
	}
	s := &Script{Name: name, Commands: p.cmds}
	if len(s.Commands) == 0 {
		return nil, &ScriptError{Msg: fmt.Sprintf("empty command list for script \"%s\"", name)}
	}
	if err := s.linkConditionals(); err != nil {
		return nil, err
	}
	for _, c := range s.Commands {
		if c.IsSQL() {
			c.finishSQL()
		}
	}
	return s, nil
}

type scriptParser struct {
	name string
	sc   sqlScanner
	cmds []*Command
}

func (p *scriptParser) run() error {
	src := p.sc.src
	for first := true; ; first = false {
		// pgbench numbers this line from where the scan resumes (or, before
		// the first scan, from the end of the script).
		lineno := lineOf(src, p.sc.pos)
		if first {
			lineno = lineOf(src, len(src)-1)
		}
		text, res := p.sc.scan()
		if c := newSQLCommand(text); c != nil {
			c.Compound = 1 + p.sc.escapedSemis
			p.cmds = append(p.cmds, c)
		}
		if res == scanBackslash {
			if err := p.backslash(lineno); err != nil {
				return err
			}
		}
		if res == scanEOF {
			return nil
		}
	}
}

// backslash parses a meta-command; \gset and \aset attach to the SQL
// command before them.
func (p *scriptParser) backslash(lineno int) error {
	c, err := parseMeta(p.name, p.sc.src, &p.sc.pos)
	if err != nil || c == nil {
		return err
	}
	if c.Meta != MetaGset && c.Meta != MetaAset {
		p.cmds = append(p.cmds, c)
		return nil
	}
	mustFollow := &SyntaxError{File: p.name, Line: lineno, Msg: "\\gset must follow an SQL command", Column: -1}
	if len(p.cmds) == 0 {
		return mustFollow
	}
	prev := p.cmds[len(p.cmds)-1]
	if !prev.IsSQL() || prev.ResultSet != MetaNone {
		// pgbench adds the command's first line, known by now only for
		// meta-commands
		mustFollow.More, mustFollow.HasMore = prev.FirstLine, !prev.IsSQL()
		return mustFollow
	}
	prev.ResultSet = c.Meta
	if len(c.Argv) > 1 {
		prev.Prefix = c.Argv[1]
	}
	return nil
}

// lineOf is the 1-based line of offset off in src.
func lineOf(src string, off int) int {
	if off > len(src) {
		off = len(src)
	}
	if off < 0 {
		off = 0
	}
	return 1 + strings.Count(src[:off], "\n")
}

// newSQLCommand makes an SQL command of text unless it holds only
// whitespace and "--" comments.
func newSQLCommand(text string) *Command {
	p := 0
	for p < len(text) {
		if isCSpace(text[p]) {
			p++
		} else if strings.HasPrefix(text[p:], "--") {
			nl := strings.IndexByte(text[p:], '\n')
			if nl < 0 {
				return nil
			}
			p += nl + 1
		} else {
			break
		}
	}
	if p == len(text) {
		return nil
	}
	return &Command{SQL: text[p:]}
}
