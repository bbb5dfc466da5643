package eval

import "github.com/conclab/conclab/kernel/eval/internal/reach"

// unwrap returns the Go value inside yaegi's wrapper for values of types
// declared in cells (see reach.Unwrap).
func unwrap(v any) any { return reach.Unwrap(v) }
