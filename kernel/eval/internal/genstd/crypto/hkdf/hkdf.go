// Package hkdf is the interpreted form of the standard library's
// crypto/hkdf: the compiled functions, instantiated for hash.Hash.
package hkdf

import (
	"hash"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// Extract generates a pseudorandom key for use with Expand from an input
// secret and an optional independent salt.
func Extract[H hash.Hash](h func() H, secret, salt []byte) ([]byte, error) {
	return rt.HKDFExtract(func() hash.Hash { return h() }, secret, salt)
}

// Expand derives a key from the given hash, key, and optional context info.
func Expand[H hash.Hash](h func() H, pseudorandomKey []byte, info string, keyLength int) ([]byte, error) {
	return rt.HKDFExpand(func() hash.Hash { return h() }, pseudorandomKey, info, keyLength)
}

// Key derives a key from the given hash, secret, salt and context info.
func Key[H hash.Hash](h func() H, secret, salt []byte, info string, keyLength int) ([]byte, error) {
	return rt.HKDFKey(func() hash.Hash { return h() }, secret, salt, info, keyLength)
}
