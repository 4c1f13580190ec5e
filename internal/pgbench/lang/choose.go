package lang

// ChooseScript is pgbench's chooseScript: the index of the script a thread
// runs next, drawn from its choose generator by weight (no draw with one
// script). total is the weights' sum, which must be positive.
func ChooseScript(choose *PRNG, weights []int64, total int64) int {
	if len(weights) == 1 {
		return 0
	}
	w := Rand(choose, 0, total-1)
	i := 0
	for {
		w -= weights[i]
		i++
		if w < 0 {
			return i - 1
		}
	}
}

// Sampled says whether a transaction goes to the log under
// --sampling-rate, drawing from the thread's sample generator as pgbench
// does.
func Sampled(sample *PRNG, rate float64) bool {
	return !(sample.Double() > rate)
}
