package lang

import "math"

// evalFunc applies a non-lazy function to evaluated arguments.
func evalFunc(fn Func, args []Value, env Env) (Value, error) {
	switch fn {
	case FuncAdd, FuncSub, FuncMul, FuncDiv, FuncMod, FuncEq, FuncNe, FuncLe, FuncLt:
		if (args[0].Kind == Double || args[1].Kind == Double) && fn != FuncMod {
			return doubleOp(fn, args[0], args[1])
		}
		return intOp(fn, args[0], args[1])
	case FuncBitAnd, FuncBitOr, FuncBitXor, FuncLShift, FuncRShift:
		return bitOp(fn, args[0], args[1])
	case FuncNot:
		b, err := toBool(args[0])
		return BoolValue(!b), err
	case FuncPi:
		return DoubleValue(math.Pi), nil
	case FuncAbs:
		return abs(args[0])
	case FuncDebug:
		env.Debug(args[0])
		return args[0], nil
	case FuncDouble, FuncSqrt, FuncLn, FuncExp:
		return mathFunc(fn, args[0])
	case FuncInt:
		i, err := toInt(args[0])
		return IntValue(i), err
	case FuncLeast, FuncGreatest:
		return extremum(fn == FuncLeast, args)
	case FuncRandom, FuncRandomExponential, FuncRandomGaussian, FuncRandomZipfian:
		return random(fn, args, env.RNG())
	case FuncPow:
		return pow(args[0], args[1])
	case FuncIs:
		// pgbench compares the type and the boolean view of the value.
		return BoolValue(args[0].Kind == args[1].Kind && args[0].Truth() == args[1].Truth()), nil
	case FuncHashMurmur2, FuncHashFNV1a:
		return hash(fn, args[0], args[1])
	case FuncPermute:
		return permute(args)
	}
	return Value{}, evalErr("unexpected function")
}

func doubleOp(fn Func, a, b Value) (Value, error) {
	x, err := toDouble(a)
	if err != nil {
		return Value{}, err
	}
	y, err := toDouble(b)
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case FuncAdd:
		return DoubleValue(x + y), nil
	case FuncSub:
		return DoubleValue(x - y), nil
	case FuncMul:
		return DoubleValue(x * y), nil
	case FuncDiv:
		return DoubleValue(x / y), nil
	case FuncEq:
		return BoolValue(x == y), nil
	case FuncNe:
		return BoolValue(x != y), nil
	case FuncLe:
		return BoolValue(x <= y), nil
	}
	return BoolValue(x < y), nil
}

func intArgs(a, b Value) (int64, int64, error) {
	x, err := toInt(a)
	if err != nil {
		return 0, 0, err
	}
	y, err := toInt(b)
	return x, y, err
}

// intOp is integer arithmetic with pgbench's overflow errors.
func intOp(fn Func, a, b Value) (Value, error) {
	x, y, err := intArgs(a, b)
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case FuncAdd:
		r := x + y
		if (r > x) != (y > 0) {
			return Value{}, evalErr("bigint add out of range")
		}
		return IntValue(r), nil
	case FuncSub:
		r := x - y
		if (r < x) != (y > 0) {
			return Value{}, evalErr("bigint sub out of range")
		}
		return IntValue(r), nil
	case FuncMul:
		r := x * y
		if x != 0 && (r/x != y || x == -1 && y == math.MinInt64 || y == -1 && x == math.MinInt64) {
			return Value{}, evalErr("bigint mul out of range")
		}
		return IntValue(r), nil
	case FuncEq:
		return BoolValue(x == y), nil
	case FuncNe:
		return BoolValue(x != y), nil
	case FuncLe:
		return BoolValue(x <= y), nil
	case FuncLt:
		return BoolValue(x < y), nil
	}
	return divMod(fn, x, y)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x // -MinInt64 stays MinInt64, whose uint64 is 1<<63
	}
	return x
}

func divMod(fn Func, x, y int64) (Value, error) {
	if y == 0 {
		return Value{}, evalErr("division by zero")
	}
	if y == -1 {
		if fn == FuncMod {
			return IntValue(0), nil
		}
		if x == math.MinInt64 {
			return Value{}, evalErr("bigint div out of range")
		}
		return IntValue(-x), nil
	}
	if fn == FuncDiv {
		return IntValue(x / y), nil
	}
	return IntValue(x % y), nil
}

// bitOp: shifts take their count modulo 64 as x86-64 does for pgbench's C.
func bitOp(fn Func, a, b Value) (Value, error) {
	x, y, err := intArgs(a, b)
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case FuncBitAnd:
		return IntValue(x & y), nil
	case FuncBitOr:
		return IntValue(x | y), nil
	case FuncBitXor:
		return IntValue(x ^ y), nil
	case FuncLShift:
		return IntValue(x << uint(y&63)), nil
	}
	return IntValue(x >> uint(y&63)), nil
}

func abs(v Value) (Value, error) {
	switch v.Kind {
	case Int:
		return IntValue(abs64(v.Int)), nil
	case Double:
		return DoubleValue(math.Abs(v.Double)), nil
	}
	// pgbench reads a boolean's union as a double: the byte 0 or 1 and, in
	// pgbench, whatever the other bytes held (undefined; not compared).
	return DoubleValue(math.Float64frombits(uint64(boolByte(v.Bool)))), nil
}

func mathFunc(fn Func, v Value) (Value, error) {
	d, err := toDouble(v)
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case FuncSqrt:
		d = math.Sqrt(d)
	case FuncLn:
		d = cLog(d)
	case FuncExp:
		d = cExp(d)
	}
	return DoubleValue(d), nil
}

func pow(a, b Value) (Value, error) {
	x, err := toDouble(a)
	if err != nil {
		return Value{}, err
	}
	y, err := toDouble(b)
	if err != nil {
		return Value{}, err
	}
	return DoubleValue(cPow(x, y)), nil
}

func extremum(least bool, args []Value) (Value, error) {
	for _, a := range args {
		if a.Kind == Double {
			return doubleExtremum(least, args)
		}
	}
	m, err := toInt(args[0])
	if err != nil {
		return Value{}, err
	}
	for _, a := range args[1:] {
		i, err := toInt(a)
		if err != nil {
			return Value{}, err
		}
		if least && i < m || !least && i > m {
			m = i
		}
	}
	return IntValue(m), nil
}

// doubleExtremum uses C's Min/Max macros, so NaN handling follows them.
func doubleExtremum(least bool, args []Value) (Value, error) {
	m, err := toDouble(args[0])
	if err != nil {
		return Value{}, err
	}
	for _, a := range args[1:] {
		d, err := toDouble(a)
		if err != nil {
			return Value{}, err
		}
		if least && !(m < d) || !least && !(m > d) { // Min(x,y) = x < y ? x : y
			m = d
		}
	}
	return DoubleValue(m), nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
