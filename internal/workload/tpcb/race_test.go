//go:build race

package tpcb

// raceDetector is true under -race, where sync.Pool drops items at random and
// the instrumentation allocates: allocation counts mean nothing then.
const raceDetector = true
