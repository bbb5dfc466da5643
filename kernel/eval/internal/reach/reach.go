// Package reach holds every use conclab makes of yaegi's unexported state
// and of its implementation details (yaegi v0.16.1, the interpreter's last
// release). Nothing else in conclab reaches into the interpreter: the rest
// uses its public API. Each reach checks the layout it expects and does
// nothing (reports failure) when it differs; TestLayout fails loudly, so an
// interpreter of another layout is caught by the tests, not by users.
package reach

import (
	"reflect"
	"unsafe"
)

var reflectValueType = reflect.TypeOf(reflect.Value{})

// Unwrap returns the Go value inside yaegi's wrapper for values of types
// declared in cells (interp.valueInterface{node *node; value reflect.Value}),
// which compiled code receives for them as an interface{}. Any other value
// is returned as is.
func Unwrap(v any) any {
	if v == nil {
		return nil
	}
	rt := reflect.TypeOf(v)
	if !isValueInterface(rt) {
		return v
	}
	p := reflect.New(rt)
	p.Elem().Set(reflect.ValueOf(v))
	f := p.Elem().Field(1)
	inner := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(reflect.Value)
	if !inner.IsValid() || !inner.CanInterface() {
		return v
	}
	return inner.Interface()
}

// IsValueInterface reports whether t is yaegi's valueInterface, the form
// of a value of a non-empty interface type declared in a cell.
func IsValueInterface(t reflect.Type) bool { return isValueInterface(t) }

func isValueInterface(rt reflect.Type) bool {
	return rt.Kind() == reflect.Struct && rt.String() == "interp.valueInterface" && rt.NumField() == 2 &&
		rt.Field(1).Type == reflectValueType
}

// Inner returns the value an interpreter wrapper holds: the IValue of an
// interface wrapper (the structs yaegi's extract generates, and yaegi's own
// interp._error: IValue first, then a W<Method> func per method), or the
// value of a valueInterface; v itself otherwise.
func Inner(v any) any {
	v = Unwrap(v)
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Struct && rv.NumField() > 1 && rv.Type().Field(0).Name == "IValue" {
		return Unwrap(rv.Field(0).Interface())
	}
	return v
}
