// Package conclab_hash_maphash holds the generic members of hash/maphash,
// for the interpreter: values are hashed as interface values (equal values
// hash equally, as the standard library guarantees).
package conclab_hash_maphash

import (
	"hash/maphash"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// Comparable returns the hash of comparable value v with the given seed
// such that Comparable(s, v1) == Comparable(s, v2) if v1 == v2.
func Comparable[T comparable](seed maphash.Seed, v T) uint64 {
	return rt.MaphashComparable(seed, v)
}

// WriteComparable adds x to the data hashed by h.
func WriteComparable[T comparable](h *maphash.Hash, x T) {
	rt.MaphashWriteComparable(h, x)
}
