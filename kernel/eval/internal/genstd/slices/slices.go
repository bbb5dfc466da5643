// Package slices is the interpreted form of the standard library's slices.
package slices

import (
	"cmp"
	"iter"
)

// Equal reports whether two slices are equal: the same length and all
// elements equal (floating-point NaNs are not equal).
func Equal[S ~[]E, E comparable](s1, s2 S) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}

// EqualFunc reports whether two slices are equal using eq on each pair.
func EqualFunc[S1 ~[]E1, S2 ~[]E2, E1, E2 any](s1 S1, s2 S2, eq func(E1, E2) bool) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i, v1 := range s1 {
		if !eq(v1, s2[i]) {
			return false
		}
	}
	return true
}

// Compare compares the elements of s1 and s2 in order, using cmp.Compare.
func Compare[S ~[]E, E cmp.Ordered](s1, s2 S) int {
	for i, v1 := range s1 {
		if i >= len(s2) {
			return +1
		}
		if c := cmp.Compare[E](v1, s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	return 0
}

// CompareFunc is like Compare but uses a custom comparison function.
func CompareFunc[S1 ~[]E1, S2 ~[]E2, E1, E2 any](s1 S1, s2 S2, cmp func(E1, E2) int) int {
	for i, v1 := range s1 {
		if i >= len(s2) {
			return +1
		}
		if c := cmp(v1, s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	return 0
}

// Index returns the index of the first occurrence of v in s, or -1.
func Index[S ~[]E, E comparable](s S, v E) int {
	for i := range s {
		if v == s[i] {
			return i
		}
	}
	return -1
}

// IndexFunc returns the first index i satisfying f(s[i]), or -1.
func IndexFunc[S ~[]E, E any](s S, f func(E) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// Contains reports whether v is present in s.
func Contains[S ~[]E, E comparable](s S, v E) bool {
	return Index[S, E](s, v) >= 0
}

// ContainsFunc reports whether at least one element e of s satisfies f(e).
func ContainsFunc[S ~[]E, E any](s S, f func(E) bool) bool {
	return IndexFunc[S, E](s, f) >= 0
}

// Insert inserts the values v... into s at index i, returning the modified
// slice. It panics if i is out of range.
func Insert[S ~[]E, E any](s S, i int, v ...E) S {
	_ = s[i:] // bounds check
	if len(v) == 0 {
		return s
	}
	out := make(S, 0, len(s)+len(v))
	out = append(out, s[:i]...)
	out = append(out, v...)
	out = append(out, s[i:]...)
	if len(out) <= cap(s) {
		// Fits: write in place, as the standard library does.
		s2 := s[:len(out)]
		copy(s2, out)
		return s2
	}
	return out
}

// Delete removes the elements s[i:j] from s, returning the modified slice,
// and zeroes the elements between the new length and the original length.
func Delete[S ~[]E, E any](s S, i, j int) S {
	_ = s[i:j:len(s)] // bounds check
	if i == j {
		return s
	}
	oldlen := len(s)
	s = append(s[:i], s[j:]...)
	var zero E
	for k := len(s); k < oldlen; k++ {
		s[:oldlen][k] = zero
	}
	return s
}

// DeleteFunc removes any elements from s for which del returns true,
// returning the modified slice, and zeroes the elements freed.
func DeleteFunc[S ~[]E, E any](s S, del func(E) bool) S {
	i := IndexFunc[S, E](s, del)
	if i == -1 {
		return s
	}
	for j := i + 1; j < len(s); j++ {
		if v := s[j]; !del(v) {
			s[i] = v
			i++
		}
	}
	var zero E
	for k := i; k < len(s); k++ {
		s[k] = zero
	}
	return s[:i]
}

// Replace replaces the elements s[i:j] by the given v, and returns the
// modified slice. It panics if j > len(s) or s[i:j] is not a valid slice.
func Replace[S ~[]E, E any](s S, i, j int, v ...E) S {
	_ = s[i:j] // bounds check
	if i == j {
		return Insert[S, E](s, i, v...)
	}
	if j == len(s) {
		s2 := append(s[:i], v...)
		var zero E
		for k := len(s2); k < len(s); k++ {
			s[k] = zero
		}
		return s2
	}
	tot := len(s[:i]) + len(v) + len(s[j:])
	out := make(S, 0, tot)
	out = append(out, s[:i]...)
	out = append(out, v...)
	out = append(out, s[j:]...)
	if tot <= cap(s) {
		s2 := s[:tot]
		copy(s2, out)
		var zero E
		for k := tot; k < len(s); k++ {
			s[k] = zero
		}
		return s2
	}
	return out
}

// Clone returns a copy of the slice (nil for nil).
func Clone[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	// make, not S{}: yaegi cannot instantiate a composite literal of a
	// type parameter.
	return append(make(S, 0, len(s)), s...)
}

// Compact replaces consecutive runs of equal elements with a single copy,
// returning the modified slice, and zeroes the elements freed.
func Compact[S ~[]E, E comparable](s S) S {
	if len(s) < 2 {
		return s
	}
	for k := 1; k < len(s); k++ {
		if s[k] == s[k-1] {
			s2 := s[k:]
			for k2 := 1; k2 < len(s2); k2++ {
				if s2[k2] != s2[k2-1] {
					s[k] = s2[k2]
					k++
				}
			}
			var zero E
			for z := k; z < len(s); z++ {
				s[z] = zero
			}
			return s[:k]
		}
	}
	return s
}

// CompactFunc is like Compact but uses an equality function.
func CompactFunc[S ~[]E, E any](s S, eq func(E, E) bool) S {
	if len(s) < 2 {
		return s
	}
	for k := 1; k < len(s); k++ {
		if eq(s[k], s[k-1]) {
			s2 := s[k:]
			for k2 := 1; k2 < len(s2); k2++ {
				if !eq(s2[k2], s2[k2-1]) {
					s[k] = s2[k2]
					k++
				}
			}
			var zero E
			for z := k; z < len(s); z++ {
				s[z] = zero
			}
			return s[:k]
		}
	}
	return s
}

// Grow increases the slice's capacity, if necessary, to guarantee space for
// another n elements. It panics if n is negative.
func Grow[S ~[]E, E any](s S, n int) S {
	if n < 0 {
		panic("cannot be negative")
	}
	if n -= cap(s) - len(s); n > 0 {
		s = append(s[:cap(s)], make([]E, n)...)[:len(s)]
	}
	return s
}

// Clip removes unused capacity from the slice.
func Clip[S ~[]E, E any](s S) S {
	return s[:len(s):len(s)]
}

// Reverse reverses the elements of the slice in place.
func Reverse[S ~[]E, E any](s S) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// Concat returns a new slice concatenating the passed in slices.
func Concat[S ~[]E, E any](slices ...S) S {
	size := 0
	for _, s := range slices {
		size += len(s)
		if size < 0 {
			panic("len out of range")
		}
	}
	newslice := Grow[S, E](nil, size)
	for _, s := range slices {
		newslice = append(newslice, s...)
	}
	return newslice
}

// Repeat returns a new slice that repeats the provided slice count times.
// It panics if count is negative or the result's length overflows.
func Repeat[S ~[]E, E any](x S, count int) S {
	if count < 0 {
		panic("cannot be negative")
	}
	const maxInt = int(^uint(0) >> 1)
	if len(x) > 0 && count > maxInt/len(x) {
		panic("the result of (len(x) * count) overflows")
	}
	newslice := make(S, 0, len(x)*count)
	for i := 0; i < count; i++ {
		newslice = append(newslice, x...)
	}
	return newslice
}

// All returns an iterator over index-value pairs in the slice in order.
func All[Slice ~[]E, E any](s Slice) iter.Seq2[int, E] {
	return func(yield func(int, E) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

// Backward returns an iterator over index-value pairs in the slice,
// traversing it backward with descending indices.
func Backward[Slice ~[]E, E any](s Slice) iter.Seq2[int, E] {
	return func(yield func(int, E) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

// Values returns an iterator that yields the slice elements in order.
func Values[Slice ~[]E, E any](s Slice) iter.Seq[E] {
	return func(yield func(E) bool) {
		for _, v := range s {
			if !yield(v) {
				return
			}
		}
	}
}

// AppendSeq appends the values from seq to the slice and returns the
// extended slice.
func AppendSeq[Slice ~[]E, E any](s Slice, seq iter.Seq[E]) Slice {
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	return s
}

// Collect collects values from seq into a new slice and returns it (nil
// when seq yields nothing).
func Collect[E any](seq iter.Seq[E]) []E {
	return AppendSeq[[]E, E]([]E(nil), seq)
}

// Sorted collects values from seq into a new slice, sorts the slice, and
// returns it.
func Sorted[E cmp.Ordered](seq iter.Seq[E]) []E {
	s := Collect[E](seq)
	Sort[[]E, E](s)
	return s
}

// SortedFunc collects values from seq into a new slice, sorts the slice
// using the comparison function, and returns it.
func SortedFunc[E any](seq iter.Seq[E], cmp func(E, E) int) []E {
	s := Collect[E](seq)
	SortFunc[[]E, E](s, cmp)
	return s
}

// SortedStableFunc collects values from seq into a new slice, sorts it
// keeping the original order of equal elements, and returns it.
func SortedStableFunc[E any](seq iter.Seq[E], cmp func(E, E) int) []E {
	s := Collect[E](seq)
	SortStableFunc[[]E, E](s, cmp)
	return s
}

// Chunk returns an iterator over consecutive sub-slices of up to n
// elements of s. It panics if n is less than 1.
func Chunk[Slice ~[]E, E any](s Slice, n int) iter.Seq[Slice] {
	if n < 1 {
		panic("cannot be less than 1")
	}
	return func(yield func(Slice) bool) {
		for i := 0; i < len(s); i += n {
			end := len(s)
			if i+n < end {
				end = i + n
			}
			if !yield(s[i:end:end]) {
				return
			}
		}
	}
}
