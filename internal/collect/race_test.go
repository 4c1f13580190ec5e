//go:build race

package collect_test

// raceDetector is true when the tests run under -race, which multiplies the
// CPU cost of every Go instruction: CPU budgets cannot be checked then.
const raceDetector = true
