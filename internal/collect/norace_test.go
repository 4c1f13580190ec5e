//go:build !race

package collect_test

// raceDetector is true when the tests run under -race (see race_test.go).
const raceDetector = false
