// Package conclab_errors holds the generic members of errors, and its Is
// and As made to work with errors of cell types, for the interpreter.
package conclab_errors

import "github.com/conclab/conclab/kernel/eval/internal/genstd/rt"

// Is reports whether any error in err's tree matches target (errors.Is;
// errors of types declared in cells compare as Go compares them).
func Is(err, target error) bool { return rt.ErrorsIs(err, target) }

// As finds the first error in err's tree that matches target, and if one
// is found, sets target to that error value and returns true (errors.As;
// targets of types declared in cells work as in Go).
func As(err error, target any) bool { return rt.ErrorsAs(err, target) }

// AsType finds the first error in err's tree that has the type E, and if
// one is found, returns that error value and true.
func AsType[E error](err error) (E, bool) {
	var e E
	ok := rt.ErrorsAs(err, &e)
	return e, ok
}
