// Package cmp is the interpreted form of the standard library's cmp.
package cmp

// Ordered is a constraint that permits any ordered type: any type that
// supports the operators < <= >= >.
type Ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 |
		~string
}

// Less reports whether x is less than y. A NaN is less than any non-NaN,
// and -0.0 is not less than 0.0.
func Less[T Ordered](x, y T) bool {
	return (isNaN[T](x) && !isNaN[T](y)) || x < y
}

// Compare returns -1 if x is less than y, 0 if x equals y, +1 if x is
// greater than y. A NaN is less than any non-NaN, a NaN equals a NaN, and
// -0.0 equals 0.0.
func Compare[T Ordered](x, y T) int {
	xNaN := isNaN[T](x)
	yNaN := isNaN[T](y)
	if xNaN {
		if yNaN {
			return 0
		}
		return -1
	}
	if yNaN {
		return +1
	}
	if x < y {
		return -1
	}
	if x > y {
		return +1
	}
	return 0
}

// isNaN reports whether x is a NaN without requiring the math package.
func isNaN[T Ordered](x T) bool {
	return x != x
}

// Or returns the first of its arguments that is not equal to the zero
// value, or the zero value when there is none.
func Or[T comparable](vals ...T) T {
	var zero T
	for _, v := range vals {
		if v != zero {
			return v
		}
	}
	return zero
}
