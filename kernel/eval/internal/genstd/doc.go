// Package genstd holds the generic part of the standard library as Go
// source the interpreter runs: the packages whose API is all generic (cmp,
// iter, maps, slices, unique, weak, crypto/hkdf, crypto/pbkdf2) and, for
// packages that mix compiled and generic API, the generic members
// (errors.AsType, sync.OnceValue, atomic.Pointer ...) as overlay packages.
//
// Generic functions cannot be linked into an interpreter as compiled code
// (a compiled instance exists only for type arguments known when the binary
// is built), so the session compiles these sources into each interpreter
// and the kernel's type checker reads them as the packages' API. They are
// written for conclab, not copied from Go's sources: plain Go that
// matches the documented behaviour of the standard library of Go 1.26 and
// 1.27 (the results, the panics, the zeroing of freed elements), and that
// the interpreter (yaegi) can run: every generic call has explicit type
// arguments, and the builtins yaegi lacks (min, max, clear) are not used.
// Sorting, interning and weak pointers call compiled code in package rt.
//
// Each package is also an ordinary Go package of this module, so its tests
// compare it with the standard library's, natively.
package genstd
