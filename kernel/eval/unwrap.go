package eval

import (
	"reflect"
	"unsafe"
)

var reflectValueType = reflect.TypeOf(reflect.Value{})

// unwrap returns the Go value inside yaegi's wrapper for values of types
// declared in cells (interp.valueInterface{node, value reflect.Value}),
// which is what compiled code receives for them as an interface{}. Any other
// value is returned as is.
func unwrap(v any) any {
	if v == nil {
		return nil
	}
	rt := reflect.TypeOf(v)
	if rt.Kind() != reflect.Struct || rt.String() != "interp.valueInterface" || rt.NumField() != 2 ||
		rt.Field(1).Type != reflectValueType {
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
