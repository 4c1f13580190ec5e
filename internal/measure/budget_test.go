package measure

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBudgetHandsOutExactlyN(t *testing.T) {
	const n, workers = 1000, 8
	b := NewBudget(n)
	var got [workers]int
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for b.Take() {
				got[w]++
			}
		})
	}
	wg.Wait()
	total := 0
	for _, g := range got {
		total += g
	}
	if total != n || b.Taken() != n || !b.Spent() {
		t.Fatalf("took %d (Taken %d, Spent %v), want exactly %d", total, b.Taken(), b.Spent(), n)
	}
	if b.Take() {
		t.Fatal("a spent budget handed out another ticket")
	}
}

func TestNilBudgetHasNoLimit(t *testing.T) {
	var b *Budget = NewBudget(0)
	for range 10 {
		if !b.Take() {
			t.Fatal("nil budget refused a transaction")
		}
	}
	if b.Spent() || b.TimeLeft(time.Minute) != "" {
		t.Fatal("nil budget reports progress")
	}
}

func TestBudgetTimeLeft(t *testing.T) {
	b := NewBudget(400)
	for range 100 {
		b.Take()
	}
	// A quarter in 10 s: three quarters take 30 s more.
	if got := b.TimeLeft(10 * time.Second); !strings.HasPrefix(got, "~30s left (25% of 400 txns)") {
		t.Fatalf("TimeLeft = %q", got)
	}
}
