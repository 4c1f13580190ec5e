package lang

// Precedence levels of pgbench's grammar, lowest first.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precBit
	precAdd
	precMul
	precUnary
)

// binaryOps maps operator tokens to their level and function; '>' and '>='
// swap their arguments as pgbench does.
var binaryOps = map[string]struct {
	prec int
	fn   Func
	swap bool
}{
	"+": {precAdd, FuncAdd, false}, "-": {precAdd, FuncSub, false},
	"*": {precMul, FuncMul, false}, "/": {precMul, FuncDiv, false}, "%": {precMul, FuncMod, false},
	"<": {precCmp, FuncLt, false}, "<=": {precCmp, FuncLe, false},
	">": {precCmp, FuncLt, true}, ">=": {precCmp, FuncLe, true},
	"=": {precCmp, FuncEq, false}, "<>": {precCmp, FuncNe, false}, "!=": {precCmp, FuncNe, false},
	"&": {precBit, FuncBitAnd, false}, "|": {precBit, FuncBitOr, false}, "#": {precBit, FuncBitXor, false},
	"<<": {precBit, FuncLShift, false}, ">>": {precBit, FuncRShift, false},
}

// exprError is a parse error at a script offset (the last byte of the token
// where pgbench's parser stopped).
type exprError struct {
	msg, more string
	hasMore   bool
	offset    int
}

// exprParser is a precedence-climbing parser accepting exactly pgbench's
// bison grammar. It reads tokens only when bison would fetch a lookahead,
// so that lexer and parser errors surface in the same order.
type exprParser struct {
	src   string
	pos   int
	tok   token
	have  bool
	atEnd bool // the last token read ended the line (flex's last_was_newline)
}

// bail carries an exprError up through the recursive descent.
type bail struct{ err *exprError }

func (p *exprParser) fail(msg, more string, hasMore bool, end int) {
	panic(bail{&exprError{msg: msg, more: more, hasMore: hasMore, offset: end - 1}})
}

func (p *exprParser) peek() token {
	if !p.have {
		t, lerr := lexExpr(p.src, p.pos)
		if lerr != nil {
			p.fail(lerr.msg, lerr.more, true, lerr.end)
		}
		p.tok, p.have, p.pos = t, true, t.end
		p.atEnd = t.kind == tEnd
	}
	return p.tok
}

func (p *exprParser) next() token {
	t := p.peek()
	p.have = false
	return t
}

func (p *exprParser) syntaxError(t token) {
	end := t.end
	if t.kind == tEnd && t.end == t.start { // end of input: flex points at the last byte
		end = len(p.src)
	}
	p.fail("syntax error", "", false, end)
}

func (p *exprParser) expectOp(op string) token {
	t := p.next()
	if t.kind != tOp || t.text != op {
		p.syntaxError(t)
	}
	return t
}

// parseExprAt parses the expression starting at pos up to and including the
// end of its line; it returns the expression and the offset after the line.
func parseExprAt(src string, pos int) (e *Expr, end int, err *exprError) {
	p := &exprParser{src: src, pos: pos}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			err, end = p.skipLine(b.err)
		}
	}()
	e = p.parse(0)
	if t := p.next(); t.kind != tEnd {
		p.syntaxError(t)
	}
	return e, p.pos, nil
}

// skipLine lexes to the end of the line as pgbench does before reporting;
// an error met on the way replaces the first (pgbench reports the last).
func (p *exprParser) skipLine(first *exprError) (*exprError, int) {
	if p.atEnd {
		return first, p.pos
	}
	err, pos := first, p.pos
	for {
		t, lerr := lexExpr(p.src, pos)
		if lerr != nil {
			err = &exprError{msg: lerr.msg, more: lerr.more, hasMore: true, offset: lerr.end - 1}
			pos = lerr.end
			continue
		}
		pos = t.end
		if t.kind == tEnd {
			return err, pos
		}
	}
}

// parse reads an expression whose operators bind at least as tightly as min.
func (p *exprParser) parse(min int) *Expr {
	left := p.prefix()
	lastCmp := false
	for {
		t := p.peek()
		switch t.kind {
		case tIs, tIsNull, tNotNull:
			if precIs < min {
				return left
			}
			p.next()
			left, lastCmp = p.isTest(t, left), false
			continue
		case tAnd, tOr:
			prec, fn := precAnd, FuncAnd
			if t.kind == tOr {
				prec, fn = precOr, FuncOr
			}
			if prec < min {
				return left
			}
			p.next()
			left, lastCmp = call(fn, left, p.parse(prec+1)), false
			continue
		case tOp:
		default:
			return left
		}
		op, ok := binaryOps[t.text]
		if !ok || op.prec < min {
			return left
		}
		if op.prec == precCmp && lastCmp { // comparisons do not associate
			p.syntaxError(t)
		}
		p.next()
		right := p.parse(op.prec + 1)
		if op.swap {
			left, right = right, left
		}
		left, lastCmp = call(op.fn, left, right), op.prec == precCmp
	}
}

func call(fn Func, args ...*Expr) *Expr { return &Expr{Kind: ExprFunc, Func: fn, Args: args} }

func constant(v Value) *Expr { return &Expr{Kind: ExprConst, Const: v} }

// isTest builds IS [NOT] NULL|TRUE|FALSE, ISNULL and NOTNULL.
func (p *exprParser) isTest(op token, left *Expr) *Expr {
	switch op.kind {
	case tIsNull:
		return call(FuncIs, left, constant(NullValue()))
	case tNotNull:
		return call(FuncNot, call(FuncIs, left, constant(NullValue())))
	}
	negate := false
	t := p.next()
	if t.kind == tNot {
		negate, t = true, p.next()
	}
	var e *Expr
	switch t.kind {
	case tNull:
		e = call(FuncIs, left, constant(NullValue()))
	case tBool:
		e = call(FuncIs, left, constant(BoolValue(t.bval)))
	default:
		p.syntaxError(t)
	}
	if negate {
		e = call(FuncNot, e)
	}
	return e
}

// prefix reads a primary expression or one led by a prefix operator.
func (p *exprParser) prefix() *Expr {
	t := p.next()
	switch t.kind {
	case tInt:
		return constant(IntValue(t.ival))
	case tDouble:
		return constant(DoubleValue(t.dval))
	case tNull:
		return constant(NullValue())
	case tBool:
		return constant(BoolValue(t.bval))
	case tVar:
		return &Expr{Kind: ExprVar, Var: t.text}
	case tNot:
		return call(FuncNot, p.parse(precNot+1))
	case tFunc:
		return p.function(t)
	case tCase:
		return p.caseExpr()
	case tOp:
		return p.prefixOp(t)
	}
	p.syntaxError(t)
	return nil
}

func (p *exprParser) prefixOp(t token) *Expr {
	switch t.text {
	case "(":
		e := p.parse(0)
		p.expectOp(")")
		return e
	case "+":
		return p.parse(precUnary + 1)
	case "-":
		if n := p.peek(); n.kind == tMaxIntPlusOne {
			p.next()
			return constant(IntValue(-1 << 63))
		}
		return call(FuncSub, constant(IntValue(0)), p.parse(precUnary+1))
	case "~":
		return call(FuncBitXor, constant(IntValue(-1)), p.parse(precBit+1))
	}
	p.syntaxError(t)
	return nil
}

// function reads name(args) and checks the arguments as pgbench's make_func.
func (p *exprParser) function(name token) *Expr {
	def, ok := findFunc(name.text)
	if !ok || !isCallable(def) {
		p.fail("unexpected function name", name.text, true, name.end)
	}
	p.expectOp("(")
	args := p.elist()
	closing := p.pos
	return p.makeFunc(def, args, closing)
}

// elist reads the arguments and the closing parenthesis. pgbench's grammar
// (elist: empty | expr | elist ',' expr) also accepts one leading comma.
func (p *exprParser) elist() []*Expr {
	var args []*Expr
	t := p.peek()
	if t.kind == tOp && t.text == ")" {
		p.next()
		return nil
	}
	if t.kind == tOp && t.text == "," {
		p.next()
	}
	for {
		args = append(args, p.parse(0))
		t := p.next()
		if t.kind == tOp && t.text == ")" {
			return args
		}
		if t.kind != tOp || t.text != "," {
			p.syntaxError(t)
		}
	}
}

// isCallable: operators' internal names are found by pgbench's find_func
// too ("mod" is both), but only plain names reach it from the lexer.
func isCallable(def funcDef) bool { return isAlpha(def.name[0]) }

func (p *exprParser) makeFunc(def funcDef, args []*Expr, end int) *Expr {
	n := len(args)
	bad := false
	switch def.nargs {
	case nargsVariable:
		if n == 0 {
			p.fail("at least one argument expected", def.name, true, end)
		}
	case nargsHash:
		bad = n < 1 || n > 2
		if n == 1 {
			args = append(args, &Expr{Kind: ExprVar, Var: "default_seed"})
		}
	case nargsPermute:
		bad = n < 2 || n > 3
		if n == 2 {
			args = append(args, &Expr{Kind: ExprVar, Var: "default_seed"})
		}
	default:
		bad = def.nargs != n
	}
	if bad {
		p.fail("unexpected number of arguments", def.name, true, end)
	}
	return &Expr{Kind: ExprFunc, Func: def.fn, Args: args}
}

// caseExpr reads WHEN c THEN v ... [ELSE e] END after CASE.
func (p *exprParser) caseExpr() *Expr {
	var args []*Expr
	if t := p.next(); t.kind != tWhen {
		p.syntaxError(t)
	}
	for {
		cond := p.parse(0)
		if t := p.next(); t.kind != tThen {
			p.syntaxError(t)
		}
		args = append(args, cond, p.parse(0))
		t := p.next()
		switch t.kind {
		case tWhen:
			continue
		case tElse:
			args = append(args, p.parse(0))
			if t := p.next(); t.kind != tEndKw {
				p.syntaxError(t)
			}
		case tEndKw:
			args = append(args, constant(NullValue()))
		default:
			p.syntaxError(t)
		}
		return call(FuncCase, args...)
	}
}

// ParseExpr parses one expression as \set's argument (up to the end of its
// line). Errors read as for a command "set" on line 1 of file "expr", the
// column counted from the start of s.
func ParseExpr(s string) (*Expr, error) {
	e, _, err := parseExprAt(s, 0)
	if err != nil {
		return nil, &SyntaxError{File: "expr", Line: 1, Msg: err.msg, More: err.more, HasMore: err.hasMore,
			Command: "set", Text: chompLine(s), HasText: true, Column: err.offset}
	}
	return e, nil
}

// chompLine drops trailing newlines and carriage returns.
func chompLine(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
