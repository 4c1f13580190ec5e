//go:build !race

package tpcb

// raceDetector is true under -race (see race_test.go).
const raceDetector = false
