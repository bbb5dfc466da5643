package slices_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	std "slices"
	"testing"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/slices"
)

type rec struct{ key, id int }

func cmpRec(a, b rec) int { return a.key - b.key }

// The interpreted sorts leave equal elements in the order the standard
// library's leave them, for lengths around the insertion-sort cutoff and
// the pattern breaker's.
func TestSortMatchesStd(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n += 1 + n/10 {
		for trial := 0; trial < 5; trial++ {
			a := make([]rec, n)
			for i := range a {
				a[i] = rec{r.IntN(1 + n/4), i}
			}
			b := std.Clone(a)
			c := std.Clone(a)
			d := std.Clone(a)
			std.SortFunc(a, cmpRec)
			slices.SortFunc(b, cmpRec)
			if !std.Equal(a, b) {
				t.Fatalf("n=%d: SortFunc = %v; std %v", n, b, a)
			}
			std.SortStableFunc(c, cmpRec)
			slices.SortStableFunc(d, cmpRec)
			if !std.Equal(c, d) {
				t.Fatalf("n=%d: SortStableFunc = %v; std %v", n, d, c)
			}
			f1 := make([]float64, n)
			for i := range f1 {
				f1[i] = float64(r.IntN(5))
				if r.IntN(10) == 0 {
					f1[i] = math.NaN()
				}
			}
			f2 := std.Clone(f1)
			std.Sort(f1)
			slices.Sort(f2)
			if fmt.Sprint(f1) != fmt.Sprint(f2) {
				t.Fatalf("n=%d: Sort = %v; std %v", n, f2, f1)
			}
		}
	}
}

// Editing functions return what the standard library's return and zero
// the same elements of the original backing array.
func TestEditsMatchStd(t *testing.T) {
	t.Parallel()
	type op struct {
		name     string
		std, own func([]int) []int
	}
	ops := []op{
		{"Insert mid", func(s []int) []int { return std.Insert(s, 1, 9, 8) }, func(s []int) []int { return slices.Insert(s, 1, 9, 8) }},
		{"Insert end", func(s []int) []int { return std.Insert(s, len(s), 7) }, func(s []int) []int { return slices.Insert(s, len(s), 7) }},
		{"Delete", func(s []int) []int { return std.Delete(s, 1, 3) }, func(s []int) []int { return slices.Delete(s, 1, 3) }},
		{"DeleteFunc", func(s []int) []int { return std.DeleteFunc(s, func(x int) bool { return x%2 == 0 }) }, func(s []int) []int { return slices.DeleteFunc(s, func(x int) bool { return x%2 == 0 }) }},
		{"Compact", std.Compact[[]int], slices.Compact[[]int]},
		{"CompactFunc", func(s []int) []int { return std.CompactFunc(s, func(a, b int) bool { return a/2 == b/2 }) }, func(s []int) []int { return slices.CompactFunc(s, func(a, b int) bool { return a/2 == b/2 }) }},
		{"Replace shrink", func(s []int) []int { return std.Replace(s, 0, 3, 5) }, func(s []int) []int { return slices.Replace(s, 0, 3, 5) }},
		{"Replace grow", func(s []int) []int { return std.Replace(s, 1, 2, 5, 6, 7) }, func(s []int) []int { return slices.Replace(s, 1, 2, 5, 6, 7) }},
		{"Replace tail", func(s []int) []int { return std.Replace(s, 2, len(s), 1) }, func(s []int) []int { return slices.Replace(s, 2, len(s), 1) }},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			for _, in := range [][]int{{1, 1, 2, 2, 2, 3, 4, 4}, {0, 1, 2, 3}, {5, 5, 5, 5, 5}} {
				a := append(make([]int, 0, 20), in...)
				b := append(make([]int, 0, 20), in...)
				ra, rb := o.std(a), o.own(b)
				if !std.Equal(ra, rb) || !std.Equal(a[:len(in)], b[:len(in)]) {
					t.Errorf("%v: got %v (backing %v); std %v (backing %v)", in, rb, b[:len(in)], ra, a[:len(in)])
				}
			}
		})
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	s := []int{3, 1, 2}
	if got, want := fmt.Sprint(slices.Sorted(slices.Values(s))), "[1 2 3]"; got != want {
		t.Errorf("Sorted(Values) = %s; want %s", got, want)
	}
	if got := slices.Collect(slices.Values([]int(nil))); got != nil {
		t.Errorf("Collect(empty) = %#v; want nil", got)
	}
	var chunks []string
	for c := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) {
		chunks = append(chunks, fmt.Sprint(c, cap(c)))
	}
	if got, want := fmt.Sprint(chunks), "[[1 2] 2 [3 4] 2 [5] 1]"; got != want {
		t.Errorf("Chunk = %s; want %s", got, want)
	}
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"Max", func() { slices.Max([]int{}) }, "slices.Max: empty list"},
		{"Repeat", func() { slices.Repeat([]int{1}, -1) }, "cannot be negative"},
		{"Chunk", func() { slices.Chunk([]int{1}, 0) }, "cannot be less than 1"},
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != c.want {
					t.Errorf("%s panic = %v; want %q", c.name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}
