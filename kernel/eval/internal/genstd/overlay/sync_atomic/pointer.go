// Package conclab_sync_atomic holds the generic members of sync/atomic, for
// the interpreter.
package conclab_sync_atomic

import "sync/atomic"

// A Pointer is an atomic pointer of type *T. The zero value is a nil *T.
type Pointer[T any] struct {
	v atomic.Value // holds a box[T]
}

// box makes every stored value of one type, nil pointers included, as
// atomic.Value requires.
type box[T any] struct{ p *T }

// Load atomically loads and returns the value stored in x.
func (x *Pointer[T]) Load() *T {
	b, ok := x.v.Load().(box[T])
	if !ok {
		return nil
	}
	return b.p
}

// Store atomically stores val into x.
func (x *Pointer[T]) Store(val *T) { x.v.Store(box[T]{val}) }

// Swap atomically stores new into x and returns the previous value.
func (x *Pointer[T]) Swap(new *T) (old *T) {
	b, ok := x.v.Swap(box[T]{new}).(box[T])
	if !ok {
		return nil
	}
	return b.p
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Pointer[T]) CompareAndSwap(old, new *T) (swapped bool) {
	if x.v.CompareAndSwap(box[T]{old}, box[T]{new}) {
		return true
	}
	// The zero value holds nothing yet: a nil old matches it.
	return old == nil && x.v.CompareAndSwap(nil, box[T]{new})
}
