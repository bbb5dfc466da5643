// Package pbkdf2 is the interpreted form of the standard library's
// crypto/pbkdf2: the compiled function, instantiated for hash.Hash.
package pbkdf2

import (
	"hash"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// Key derives a key from the password, salt and iteration count.
func Key[H hash.Hash](h func() H, password string, salt []byte, rounds int, keyLength int) ([]byte, error) {
	return rt.PBKDF2Key(func() hash.Hash { return h() }, password, salt, rounds, keyLength)
}
