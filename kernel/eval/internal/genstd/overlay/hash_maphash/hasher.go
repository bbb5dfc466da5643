//go:build go1.27

package conclab_hash_maphash

import "hash/maphash"

// A Hasher defines the interface between a hash-based container and its
// elements: a hash function and an equivalence relation over values of T.
type Hasher[T any] interface {
	Hash(*maphash.Hash, T)
	Equal(x, y T) bool
}

// ComparableHasher is an implementation of Hasher whose Equal(x, y) method
// is consistent with x == y.
type ComparableHasher[T comparable] struct {
	_ [0]T
}

// Hash adds v to the data hashed by h.
func (ComparableHasher[T]) Hash(h *maphash.Hash, v T) { WriteComparable[T](h, v) }

// Equal reports whether x == y.
func (ComparableHasher[T]) Equal(x, y T) bool { return x == y }
