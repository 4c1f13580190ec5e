package lang

import (
	"strconv"
	"strings"
)

// Func identifies an operator or function of the expression language.
type Func uint8

// The operators and functions; operators are functions with internal names,
// as in pgbench.
const (
	FuncAdd Func = iota
	FuncSub
	FuncMul
	FuncDiv
	FuncMod
	FuncAbs
	FuncLeast
	FuncGreatest
	FuncDebug
	FuncPi
	FuncSqrt
	FuncLn
	FuncExp
	FuncInt
	FuncDouble
	FuncRandom
	FuncRandomGaussian
	FuncRandomExponential
	FuncRandomZipfian
	FuncPow
	FuncAnd
	FuncOr
	FuncNot
	FuncBitAnd
	FuncBitOr
	FuncBitXor
	FuncLShift
	FuncRShift
	FuncEq
	FuncNe
	FuncLe
	FuncLt
	FuncIs
	FuncCase
	FuncHashMurmur2
	FuncHashFNV1a
	FuncPermute
)

// Argument counts with a special meaning.
const (
	nargsVariable = -1 // least, greatest: at least one
	nargsCase     = -2
	nargsHash     = -3 // one, plus an optional seed
	nargsPermute  = -4 // two, plus an optional seed
)

type funcDef struct {
	name  string
	nargs int
	fn    Func
}

// functions is pgbench's table, in its order: names starting with "!" or
// made of symbols are reached only through operators.
var functions = []funcDef{
	{"+", 2, FuncAdd}, {"-", 2, FuncSub}, {"*", 2, FuncMul}, {"/", 2, FuncDiv},
	{"mod", 2, FuncMod}, {"abs", 1, FuncAbs}, {"least", nargsVariable, FuncLeast},
	{"greatest", nargsVariable, FuncGreatest}, {"debug", 1, FuncDebug}, {"pi", 0, FuncPi},
	{"sqrt", 1, FuncSqrt}, {"ln", 1, FuncLn}, {"exp", 1, FuncExp}, {"int", 1, FuncInt},
	{"double", 1, FuncDouble}, {"random", 2, FuncRandom},
	{"random_gaussian", 3, FuncRandomGaussian}, {"random_exponential", 3, FuncRandomExponential},
	{"random_zipfian", 3, FuncRandomZipfian}, {"pow", 2, FuncPow}, {"power", 2, FuncPow},
	{"!and", 2, FuncAnd}, {"!or", 2, FuncOr}, {"!not", 1, FuncNot},
	{"&", 2, FuncBitAnd}, {"|", 2, FuncBitOr}, {"#", 2, FuncBitXor},
	{"<<", 2, FuncLShift}, {">>", 2, FuncRShift},
	{"=", 2, FuncEq}, {"<>", 2, FuncNe}, {"<=", 2, FuncLe}, {"<", 2, FuncLt},
	{"!is", 2, FuncIs}, {"!case_end", nargsCase, FuncCase},
	{"hash", nargsHash, FuncHashMurmur2}, {"hash_murmur2", nargsHash, FuncHashMurmur2},
	{"hash_fnv1a", nargsHash, FuncHashFNV1a}, {"permute", nargsPermute, FuncPermute},
}

func findFunc(name string) (funcDef, bool) {
	for _, f := range functions {
		if strings.EqualFold(f.name, name) {
			return f, true
		}
	}
	return funcDef{}, false
}

// ExprKind says what an Expr node is.
type ExprKind uint8

// The kinds of expression nodes.
const (
	ExprConst ExprKind = iota
	ExprVar
	ExprFunc
)

// Expr is a parsed expression: a constant, a variable or a function call
// (operators included) with its arguments in evaluation order.
type Expr struct {
	Kind  ExprKind
	Const Value
	Var   string
	Ref   int // a variable reference's number (NumberVarRefs), 0 when not numbered
	Func  Func
	Args  []*Expr
}

// NumberVarRefs numbers the variable references of the scripts'
// expressions from 1 (Expr.Ref) and returns how many there are, so that an
// engine can keep what each reference found (a *Var per client) in a
// slice rather than look its name up on every evaluation.
func NumberVarRefs(scripts ...*Script) int {
	n := 0
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e.Kind == ExprVar {
			n++
			e.Ref = n
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for _, s := range scripts {
		for _, c := range s.Commands {
			if c.Expr != nil {
				walk(c.Expr)
			}
		}
	}
	return n
}

// infix are the operators String writes between their arguments.
var infix = map[Func]string{
	FuncAdd: "+", FuncSub: "-", FuncMul: "*", FuncDiv: "/", FuncMod: "%",
	FuncAnd: "and", FuncOr: "or", FuncBitAnd: "&", FuncBitOr: "|", FuncBitXor: "#",
	FuncLShift: "<<", FuncRShift: ">>", FuncEq: "=", FuncNe: "<>", FuncLe: "<=", FuncLt: "<",
}

// String writes e in the expression language, fully parenthesised, so that
// parsing it again gives an expression that evaluates the same way.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	switch e.Kind {
	case ExprConst:
		writeConst(b, e.Const)
	case ExprVar:
		b.WriteString(":" + e.Var)
	default:
		e.writeFunc(b)
	}
}

func writeConst(b *strings.Builder, v Value) {
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Int:
		if v.Int < 0 && v.Int != -1<<63 {
			b.WriteString("(0 - " + strconv.FormatUint(uint64(-v.Int), 10) + ")")
			return
		}
		b.WriteString(strconv.FormatInt(v.Int, 10))
	case Double:
		s := strconv.FormatFloat(v.Double, 'e', -1, 64)
		b.WriteString(s)
	default:
		b.WriteString(v.String())
	}
}

func (e *Expr) writeFunc(b *strings.Builder) {
	if op, ok := infix[e.Func]; ok {
		b.WriteByte('(')
		e.Args[0].write(b)
		b.WriteString(" " + op + " ")
		e.Args[1].write(b)
		b.WriteByte(')')
		return
	}
	switch e.Func {
	case FuncNot:
		b.WriteString("(not ")
		e.Args[0].write(b)
		b.WriteByte(')')
	case FuncIs:
		b.WriteByte('(')
		e.Args[0].write(b)
		b.WriteString(" is ")
		e.Args[1].write(b)
		b.WriteByte(')')
	case FuncCase:
		b.WriteString("case")
		n := len(e.Args)
		for i := 0; i+1 < n; i += 2 {
			b.WriteString(" when ")
			e.Args[i].write(b)
			b.WriteString(" then ")
			e.Args[i+1].write(b)
		}
		b.WriteString(" else ")
		e.Args[n-1].write(b)
		b.WriteString(" end")
	default:
		e.writeCall(b)
	}
}

func (e *Expr) writeCall(b *strings.Builder) {
	for _, f := range functions {
		if f.fn == e.Func {
			b.WriteString(f.name + "(")
			break
		}
	}
	for i, a := range e.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.write(b)
	}
	b.WriteByte(')')
}
