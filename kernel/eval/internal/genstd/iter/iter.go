// Package iter is the interpreted form of the standard library's iter.
//
// Pull and Pull2 run on the standard library's own (compiled) iter.Pull2,
// with the values passed as interface values.
package iter

import "github.com/conclab/conclab/kernel/eval/internal/genstd/rt"

// Seq is an iterator over sequences of individual values.
type Seq[V any] func(yield func(V) bool)

// Seq2 is an iterator over sequences of pairs of values.
type Seq2[K, V any] func(yield func(K, V) bool)

// Pull converts the push-style iterator seq into a pull-style iterator
// accessed by the two functions next and stop.
func Pull[V any](seq Seq[V]) (next func() (V, bool), stop func()) {
	n, s := rt.Pull2(func(yield func(any, any) bool) {
		seq(func(v V) bool { return yield(nil, v) })
	})
	next = func() (V, bool) {
		_, v, ok := n()
		if !ok {
			var zero V
			return zero, false
		}
		x, _ := v.(V)
		return x, true
	}
	return next, s
}

// Pull2 converts the push-style iterator seq into a pull-style iterator
// accessed by the two functions next and stop.
func Pull2[K, V any](seq Seq2[K, V]) (next func() (K, V, bool), stop func()) {
	n, s := rt.Pull2(func(yield func(any, any) bool) {
		seq(func(k K, v V) bool { return yield(k, v) })
	})
	next = func() (K, V, bool) {
		k, v, ok := n()
		if !ok {
			var zk K
			var zv V
			return zk, zv, false
		}
		xk, _ := k.(K)
		xv, _ := v.(V)
		return xk, xv, true
	}
	return next, s
}
