package lang

import (
	"fmt"
	"math"
)

// Env is what evaluating an expression needs from the client running it.
type Env interface {
	// Lookup returns the value of the variable ref names (ref.Var; ref.Ref
	// numbers the reference when NumberVarRefs numbered it), or an error
	// ("undefined variable").
	Lookup(ref *Expr) (Value, error)
	// RNG is the client's expression generator (pgbench's cs_func_rs).
	RNG() *PRNG
	// Debug receives the argument of debug(); pgbench prints it to stderr
	// as DebugLine formats it.
	Debug(v Value)
}

// DebugLine is what pgbench prints for debug(v) in a script and command
// (both as pgbench numbers them: script from 0, command from 1).
func DebugLine(script, command int, v Value) string {
	var s string
	switch v.Kind {
	case Null:
		s = "null"
	case Bool:
		s = "boolean " + v.String()
	case Int:
		s = "int " + v.String()
	default:
		s = "double " + formatDouble(v.Double)
	}
	return fmt.Sprintf("debug(script=%d,command=%d): %s", script, command, s)
}

// maxFuncArgs is pgbench's MAX_FARGS.
const maxFuncArgs = 16

// Eval evaluates e as pgbench's evaluateExpr does.
func Eval(e *Expr, env Env) (Value, error) {
	switch e.Kind {
	case ExprConst:
		return e.Const, nil
	case ExprVar:
		return env.Lookup(e)
	}
	switch e.Func {
	case FuncAnd, FuncOr:
		return evalLogic(e, env)
	case FuncCase:
		return evalCase(e.Args, env)
	}
	if len(e.Args) > maxFuncArgs {
		for _, a := range e.Args[:maxFuncArgs] {
			if _, err := Eval(a, env); err != nil {
				return Value{}, err
			}
		}
		return Value{}, evalErr("too many function arguments, maximum is %d", maxFuncArgs)
	}
	if len(e.Args) > fewArgs {
		var buf [maxFuncArgs]Value
		return evalCall(e, buf[:len(e.Args)], env)
	}
	var buf [fewArgs]Value // most functions: not zeroing 16 values on every call
	return evalCall(e, buf[:len(e.Args)], env)
}

// fewArgs is as many arguments as most functions take.
const fewArgs = 3

// evalCall evaluates e's arguments into args and calls its function.
func evalCall(e *Expr, args []Value, env Env) (Value, error) {
	hasNull := false
	for i, a := range e.Args {
		v, err := Eval(a, env)
		if err != nil {
			return Value{}, err
		}
		args[i], hasNull = v, hasNull || v.Kind == Null
	}
	if hasNull && e.Func != FuncIs && e.Func != FuncDebug {
		return NullValue(), nil
	}
	return evalFunc(e.Func, args, env)
}

// evalLogic is AND and OR: lazy, NULL if either side is NULL.
func evalLogic(e *Expr, env Env) (Value, error) {
	a, err := Eval(e.Args[0], env)
	if err != nil || a.Kind == Null {
		return a, err
	}
	ba, err := toBool(a)
	if err != nil {
		return Value{}, err
	}
	if ba == (e.Func == FuncOr) {
		return BoolValue(ba), nil
	}
	b, err := Eval(e.Args[1], env)
	if err != nil || b.Kind == Null {
		return b, err
	}
	bb, err := toBool(b)
	if err != nil {
		return Value{}, err
	}
	return BoolValue(bb), nil
}

func evalCase(args []*Expr, env Env) (Value, error) {
	for len(args) > 1 {
		c, err := Eval(args[0], env)
		if err != nil {
			return Value{}, err
		}
		if c.Truth() {
			return Eval(args[1], env)
		}
		args = args[2:]
	}
	return Eval(args[0], env)
}

func toBool(v Value) (bool, error) {
	if v.Kind != Bool {
		return false, evalErr("cannot coerce %s to boolean", v.Kind)
	}
	return v.Bool, nil
}

// toInt is pgbench's coerceToInt: doubles are rounded half to even.
func toInt(v Value) (int64, error) {
	switch v.Kind {
	case Int:
		return v.Int, nil
	case Double:
		d := math.RoundToEven(v.Double)
		if math.IsNaN(d) || d < -0x1p63 || d >= 0x1p63 {
			return 0, evalErr("double to int overflow for %s", cFormatF(d))
		}
		return int64(d), nil
	}
	return 0, evalErr("cannot coerce %s to int", v.Kind)
}

func toDouble(v Value) (float64, error) {
	switch v.Kind {
	case Double:
		return v.Double, nil
	case Int:
		return float64(v.Int), nil
	}
	return 0, evalErr("cannot coerce %s to double", v.Kind)
}

// cFormatF is PostgreSQL's snprintf "%f".
func cFormatF(d float64) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	}
	return fmt.Sprintf("%f", d)
}
