// Package unique is the interpreted form of the standard library's unique:
// a Handle holds its value and a token interned for the value in a table
// of the process (compiled package rt), so two handles are equal exactly
// when their values are; the table does not release values.
package unique

import "github.com/conclab/conclab/kernel/eval/internal/genstd/rt"

// Handle is a globally unique identity for some value of type T.
type Handle[T comparable] struct {
	token any
	value T
}

// Value returns a shallow copy of the value that produced the Handle.
func (h Handle[T]) Value() T {
	return h.value
}

// Make returns a globally unique handle for a value of type T.
func Make[T comparable](value T) Handle[T] {
	var h Handle[T]
	h.token = rt.Intern(value)
	h.value = value
	return h
}
