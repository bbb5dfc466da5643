// Package weak is the interpreted form of the standard library's weak: a
// Pointer holds the compiled weak pointer of the object's address.
package weak

import "github.com/conclab/conclab/kernel/eval/internal/genstd/rt"

// Pointer is a weak pointer to a value of type T.
type Pointer[T any] struct {
	w rt.Weak
	// out receives Value's result in the receiver's copy (yaegi cannot
	// compile a local variable of type *T in a generic method); it is nil
	// in every stored Pointer.
	out *T
}

// Make creates a weak pointer from a pointer to some value of type T.
func Make[T any](ptr *T) Pointer[T] {
	var p Pointer[T]
	if ptr != nil {
		p.w = rt.MakeWeak(ptr)
	}
	return p
}

// Value returns the original pointer used to create the weak pointer, or
// nil if the value it points to has been reclaimed by the garbage
// collector.
func (p Pointer[T]) Value() *T {
	rt.WeakValue(p.w, &p.out)
	return p.out
}
