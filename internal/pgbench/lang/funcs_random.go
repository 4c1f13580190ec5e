package lang

import "math"

// random evaluates random(), random_exponential(), random_gaussian() and
// random_zipfian() with pgbench's checks and error texts.
func random(fn Func, args []Value, rng *PRNG) (Value, error) {
	lo, hi, err := intArgs(args[0], args[1])
	if err != nil {
		return Value{}, err
	}
	if lo > hi {
		return Value{}, evalErr("empty range given to random")
	}
	if d := hi - lo; d < 0 || d == math.MaxInt64 { // hi-lo+1 overflows
		return Value{}, evalErr("random range is too large")
	}
	if fn == FuncRandom {
		return IntValue(Rand(rng, lo, hi)), nil
	}
	param, err := toDouble(args[2])
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case FuncRandomGaussian:
		if param < MinGaussianParam {
			return Value{}, evalErr("gaussian parameter must be at least %s (not %s)", cFormatF(MinGaussianParam), cFormatF(param))
		}
		return IntValue(RandGaussian(rng, lo, hi, param)), nil
	case FuncRandomZipfian:
		if param < MinZipfianParam || param > MaxZipfianParam {
			return Value{}, evalErr("zipfian parameter must be in range [%.3f, %.0f] (not %s)", MinZipfianParam, MaxZipfianParam, cFormatF(param))
		}
		return IntValue(RandZipfian(rng, lo, hi, param)), nil
	}
	if param <= 0 {
		return Value{}, evalErr("exponential parameter must be greater than zero (not %s)", cFormatF(param))
	}
	return IntValue(RandExponential(rng, lo, hi, param)), nil
}

func hash(fn Func, a, b Value) (Value, error) {
	v, seed, err := intArgs(a, b)
	if err != nil {
		return Value{}, err
	}
	if fn == FuncHashFNV1a {
		return IntValue(HashFNV1a(v, seed)), nil
	}
	return IntValue(HashMurmur2(v, seed)), nil
}

func permute(args []Value) (Value, error) {
	v, size, err := intArgs(args[0], args[1])
	if err != nil {
		return Value{}, err
	}
	seed, err := toInt(args[2])
	if err != nil {
		return Value{}, err
	}
	if size <= 0 {
		return Value{}, evalErr("permute size parameter must be greater than zero")
	}
	return IntValue(Permute(v, size, seed)), nil
}
