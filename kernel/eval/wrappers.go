package eval

import (
	"fmt"
	"reflect"

	"github.com/traefik/yaegi/interp"

	"github.com/conclab/conclab/internal/symbols/stdlib"
	"github.com/conclab/conclab/kernel/eval/internal/reach"
)

// Interface wrappers of the session, composed with the W_conclabSelf field
// that gives the value itself (see selfMethod), and with Unwrap for errors
// (so errors.Is and errors.As follow a cell type's Unwrap). yaegi picks, for
// a value it passes as an interface to compiled code, the first wrapper of
// the interface's list whose methods the value's type has all of, by name.

type wrapErrorUnwrapSelf struct {
	IValue        any
	WError        func() string
	WUnwrap       func() error
	W_conclabSelf func() any
}

func (w wrapErrorUnwrapSelf) Error() string { return w.WError() }
func (w wrapErrorUnwrapSelf) Unwrap() error { return w.WUnwrap() }

type wrapErrorSelf struct {
	IValue        any
	WError        func() string
	W_conclabSelf func() any
}

func (w wrapErrorSelf) Error() string { return w.WError() }

type wrapErrorUnwrap struct {
	IValue  any
	WError  func() string
	WUnwrap func() error
}

func (w wrapErrorUnwrap) Error() string { return w.WError() }
func (w wrapErrorUnwrap) Unwrap() error { return w.WUnwrap() }

type wrapStringerSelf struct {
	IValue        any
	WString       func() string
	W_conclabSelf func() any
}

func (w wrapStringerSelf) String() string {
	if w.WString == nil {
		return ""
	}
	return w.WString()
}

type wrapFormatterSelf struct {
	IValue        any
	WFormat       func(fmt.State, rune)
	W_conclabSelf func() any
}

func (w wrapFormatterSelf) Format(f fmt.State, verb rune) { w.WFormat(f, verb) }

// composedWrappers returns the MapTypes entries registering the session's
// wrappers for error (yaegi's own wrapper, found through in.Symbols),
// fmt.Stringer and fmt.Formatter.
func composedWrappers(in *interp.Interpreter) map[reflect.Value][]reflect.Type {
	out := map[reflect.Value][]reflect.Type{}
	if e, ok := reach.Of(in).ErrorWrapper(); ok {
		out[e] = []reflect.Type{reflect.TypeFor[wrapErrorUnwrapSelf](), reflect.TypeFor[wrapErrorSelf](), reflect.TypeFor[wrapErrorUnwrap]()}
	}
	f := stdlib.Symbols["fmt/fmt"]
	if s, ok := f["_Stringer"]; ok {
		out[s] = []reflect.Type{reflect.TypeFor[wrapStringerSelf]()}
	}
	if s, ok := f["_Formatter"]; ok {
		out[s] = []reflect.Type{reflect.TypeFor[wrapFormatterSelf]()}
	}
	return out
}
