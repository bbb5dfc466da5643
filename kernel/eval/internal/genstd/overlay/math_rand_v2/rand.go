// Package conclab_math_rand_v2 holds the generic members of math/rand/v2,
// for the interpreter.
package conclab_math_rand_v2

import "math/rand/v2"

// N returns a pseudo-random number in the half-open interval [0,n) from
// the default Source. It panics if n <= 0.
func N[Int ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](n Int) Int {
	if n <= 0 {
		panic("invalid argument to N")
	}
	return Int(rand.Uint64N(uint64(n)))
}
