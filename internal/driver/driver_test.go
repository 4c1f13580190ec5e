package driver

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestDeckDealsEveryCardOncePerRound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d, err := NewDeck([]int{10, 10, 1, 1, 1}, r.IntN)
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 50; round++ {
		got := make([]int, 5)
		for range 23 {
			got[d.Next()]++
		}
		if want := []int{10, 10, 1, 1, 1}; !equal(got, want) {
			t.Fatalf("round %d dealt %v, want %v", round, got, want)
		}
	}
}

func TestValidateWeights(t *testing.T) {
	tests := []struct {
		w  []int
		ok bool
	}{
		{[]int{45, 43, 4, 4, 4}, true},
		{[]int{0, 0, 0}, false},
		{[]int{-1, 5}, false},
		{[]int{10000, 1}, false},
	}
	for _, tc := range tests {
		if err := ValidateWeights(tc.w); (err == nil) != tc.ok {
			t.Errorf("ValidateWeights(%v) = %v, want ok=%v", tc.w, err, tc.ok)
		}
	}
}

func TestThinkTimeMeanAndCap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mean := 12 * time.Second
	var sum time.Duration
	const n = 200000
	for range n {
		tt := ThinkTime(mean, 1-r.Float64())
		if tt > 10*mean || tt < 0 {
			t.Fatalf("think time %v outside [0, 10×mean]", tt)
		}
		sum += tt
	}
	// The cap at 10× removes e^-10 of the mass: the mean stays within 1%.
	if got := sum / n; got < mean*99/100 || got > mean*101/100 {
		t.Errorf("mean think time %v, want ~%v", got, mean)
	}
}

func TestScheduleSpacing(t *testing.T) {
	start := time.Unix(0, 0)
	s := NewSchedule(600, 0, 10, start) // 600/min over 10 terminals: each every second
	a, b := s.Next(), s.Next()
	if b.Sub(a) != time.Second {
		t.Errorf("interval %v, want 1s", b.Sub(a))
	}
	var none Schedule
	if none.Limited() {
		t.Error("zero schedule is limited")
	}
}

func TestErrorClasses(t *testing.T) {
	tests := []struct {
		err       error
		retryable bool
		lost      bool
	}{
		{&pgconn.PgError{Code: "40001"}, true, false},
		{&pgconn.PgError{Code: "40P01"}, true, false},
		{&pgconn.PgError{Code: "57P01"}, false, true},
		{&pgconn.PgError{Code: "23505"}, false, false},
		{errors.New("plain"), false, false},
	}
	for _, tc := range tests {
		if Retryable(tc.err) != tc.retryable || ConnectionLost(tc.err) != tc.lost {
			t.Errorf("%v: retryable %v lost %v, want %v %v", tc.err, Retryable(tc.err), ConnectionLost(tc.err), tc.retryable, tc.lost)
		}
	}
}

func equal(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestReadProcessUsage(t *testing.T) {
	before := ReadProcessUsage()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i % 7
	}
	after := ReadProcessUsage()
	if after.CPU <= before.CPU || after.PeakRSS <= 0 {
		t.Errorf("usage before %+v after %+v (x=%d): want CPU to grow and a peak RSS", before, after, x)
	}
}
