package slices

import (
	"cmp"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// Sort sorts a slice of any ordered type in ascending order. When sorting
// floating-point numbers, NaNs are ordered before other values.
func Sort[S ~[]E, E cmp.Ordered](x S) {
	rt.SortSlice(x, func(i, j int) bool { return cmp.Less[E](x[i], x[j]) })
}

// SortFunc sorts the slice x in ascending order as determined by cmp. It is
// not guaranteed to be stable.
func SortFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	rt.SortSlice(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

// SortStableFunc sorts the slice x while keeping the original order of
// equal elements, using cmp to compare elements.
func SortStableFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	rt.SortSliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

// IsSorted reports whether x is sorted in ascending order.
func IsSorted[S ~[]E, E cmp.Ordered](x S) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp.Less[E](x[i], x[i-1]) {
			return false
		}
	}
	return true
}

// IsSortedFunc reports whether x is sorted in ascending order, with cmp as
// the comparison function.
func IsSortedFunc[S ~[]E, E any](x S, cmp func(a, b E) int) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}

// Min returns the minimal value in x. It panics if x is empty. For
// floating-point numbers, Min propagates NaNs.
func Min[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if v := x[i]; v != v {
			return v
		} else if m == m && v < m {
			m = v
		}
	}
	return m
}

// MinFunc returns the minimal value in x, using cmp; the first of several
// minimal elements. It panics if x is empty.
func MinFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) < 0 {
			m = x[i]
		}
	}
	return m
}

// Max returns the maximal value in x. It panics if x is empty. For
// floating-point E, Max propagates NaNs.
func Max[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if v := x[i]; v != v {
			return v
		} else if m == m && v > m {
			m = v
		}
	}
	return m
}

// MaxFunc returns the maximal value in x, using cmp; the first of several
// maximal elements. It panics if x is empty.
func MaxFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) > 0 {
			m = x[i]
		}
	}
	return m
}

// BinarySearch searches for target in a sorted slice and returns the
// earliest position where target is found, or the position where it would
// appear in the sort order, and whether it was found.
func BinarySearch[S ~[]E, E cmp.Ordered](x S, target E) (int, bool) {
	n := len(x)
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if cmp.Less[E](x[h], target) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < n && (x[i] == target || (x[i] != x[i] && target != target))
}

// BinarySearchFunc works like BinarySearch, but uses a custom comparison
// function.
func BinarySearchFunc[S ~[]E, E, T any](x S, target T, cmp func(E, T) int) (int, bool) {
	n := len(x)
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if cmp(x[h], target) < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < n && cmp(x[i], target) == 0
}
