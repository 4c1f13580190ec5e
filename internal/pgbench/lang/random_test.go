package lang

import "testing"

// TestPermuteIsABijection: for several sizes and seeds every value of
// [0, size) comes out exactly once, and values outside wrap modulo size.
func TestPermuteIsABijection(t *testing.T) {
	for _, size := range []int64{2, 3, 7, 64, 100, 1000} {
		for _, seed := range []int64{0, 1, -5, 1 << 40} {
			seen := make(map[int64]bool, size)
			for v := int64(0); v < size; v++ {
				p := Permute(v, size, seed)
				if p < 0 || p >= size || seen[p] {
					t.Fatalf("permute(%d, %d, %d) = %d: out of range or repeated", v, size, seed, p)
				}
				seen[p] = true
				if w := Permute(v+size, size, seed); w != p {
					t.Fatalf("permute(%d) = %d but permute(%d) = %d", v, p, v+size, w)
				}
			}
		}
	}
	if Permute(5, 1, 3) != 0 {
		t.Error("permute with size 1 must be 0")
	}
}

// TestUint64RangeStaysInRange: the rejection sampler never leaves [lo, hi].
func TestUint64RangeStaysInRange(t *testing.T) {
	p := NewPRNG(42)
	for i := 0; i < 10000; i++ {
		if v := p.Uint64Range(10, 17); v < 10 || v > 17 {
			t.Fatalf("Uint64Range(10, 17) = %d", v)
		}
		if d := p.Double(); d < 0 || d >= 1 {
			t.Fatalf("Double() = %v", d)
		}
	}
}
