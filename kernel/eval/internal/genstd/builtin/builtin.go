// Package conclab_builtin holds the builtins of Go 1.21 that the
// interpreter lacks: min, max and clear. The pipeline's builtins pass
// rewrites calls of them into calls of these, with the type argument the
// type checker found (min and max of constants are folded instead).
package conclab_builtin

import (
	"cmp"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// Min is the builtin min: the smallest of its arguments. For floating-point
// arguments a NaN wins, and -0.0 is smaller than 0.0.
func Min[T cmp.Ordered](x T, y ...T) T {
	m := x
	for _, v := range y {
		switch {
		case m != m:
			return m
		case v != v:
			return v
		case v < m, v == m && rt.SignBit(v):
			m = v
		}
	}
	return m
}

// Max is the builtin max: the largest of its arguments. For floating-point
// arguments a NaN wins, and 0.0 is larger than -0.0.
func Max[T cmp.Ordered](x T, y ...T) T {
	m := x
	for _, v := range y {
		switch {
		case m != m:
			return m
		case v != v:
			return v
		case v > m, v == m && rt.SignBit(m):
			m = v
		}
	}
	return m
}

// Clear is the builtin clear: it deletes all entries of a map, or sets
// all elements of a slice to their zero value.
func Clear(x any) { rt.Clear(x) }
