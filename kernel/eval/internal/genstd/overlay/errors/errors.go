// Package conclab_errors holds the generic members of errors, for the
// interpreter.
package conclab_errors

// AsType finds the first error in err's tree that has the type E, and if
// one is found, returns that error value and true. The tree is walked as
// errors.As walks it: err, then depth-first through Unwrap() error and
// Unwrap() []error; an error with an As(any) bool method matching E counts.
func AsType[E error](err error) (E, bool) {
	var zero E
	if err == nil {
		return zero, false
	}
	if e, ok := err.(E); ok {
		return e, true
	}
	if x, ok := err.(interface{ As(any) bool }); ok {
		var e E
		if x.As(&e) {
			return e, true
		}
	}
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		return AsType[E](x.Unwrap())
	case interface{ Unwrap() []error }:
		for _, inner := range x.Unwrap() {
			if e, ok := AsType[E](inner); ok {
				return e, true
			}
		}
	}
	return zero, false
}
