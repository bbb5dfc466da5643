// Package conclab_reflect holds the generic members of reflect, for the
// interpreter.
package conclab_reflect

import "reflect"

// TypeFor returns the reflect.Type that represents the type argument T.
func TypeFor[T any]() reflect.Type {
	var p *T
	return reflect.TypeOf(p).Elem()
}

// TypeAssert is semantically equivalent to v.Interface().(T).
func TypeAssert[T any](v reflect.Value) (T, bool) {
	x, ok := v.Interface().(T)
	return x, ok
}
