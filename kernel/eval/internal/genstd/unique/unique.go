// Package unique is the interpreted form of the standard library's unique:
// values are interned in a table of the session (compiled package rt)
// keyed by the value, so two handles are equal exactly when their values
// are; the table does not release values.
package unique

import "github.com/conclab/conclab/kernel/eval/internal/genstd/rt"

// Handle is a globally unique identity for some value of type T.
type Handle[T comparable] struct {
	value *T
}

// Value returns a shallow copy of the value that produced the Handle.
func (h Handle[T]) Value() T {
	return *h.value
}

// Make returns a globally unique handle for a value of type T.
func Make[T comparable](value T) Handle[T] {
	p := rt.Intern(value, func() any {
		v := value
		return &v
	})
	return Handle[T]{value: p.(*T)}
}
