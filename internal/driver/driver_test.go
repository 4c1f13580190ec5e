package driver

import (
	"errors"
	"math/rand/v2"
	"testing"

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
