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
		return Unwrap(WrapperValue(rv))
	}
	return v
}

// WrapperValue is the value an interface wrapper holds. yaegi puts into
// IValue, for a value of a struct type, its last field (its
// getConcreteValue looks for an emulated interface's value in the last
// field): the session's wrappers carry a W_conclabSelf method field that
// returns the value itself, used when present.
//
// W_conclabSelf is a value method (it returns a copy for a pointer), and
// IValue is right for a pointer: a pointer to the type of the value
// W_conclabSelf returns is taken as the value (a struct value whose last
// field points to a value of its own type would be mistaken for it).
func WrapperValue(w reflect.Value) any {
	iv := Unwrap(w.Field(0).Interface())
	f := w.FieldByName("W_conclabSelf")
	if !f.IsValid() || f.Kind() != reflect.Func || f.IsNil() {
		return iv
	}
	self, ok := f.Interface().(func() any)
	if !ok {
		return iv
	}
	s := Unwrap(self())
	if iv != nil && s != nil {
		if t := reflect.TypeOf(iv); t.Kind() == reflect.Pointer && t.Elem() == reflect.TypeOf(s) && !reflect.ValueOf(iv).IsNil() {
			return iv
		}
	}
	return s
}

// Deep returns v with the valueInterface boxes inside its interface
// values (in maps, slices, arrays, struct fields) replaced by the values
// they hold; v itself when it has none. The containers holding boxes are
// copied, not changed.
func Deep(v any) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(Unwrap(v))
	if out, changed := deep(rv, 0); changed {
		return out.Interface()
	}
	return Unwrap(v)
}

func deep(v reflect.Value, depth int) (reflect.Value, bool) {
	if depth > 64 || !v.IsValid() {
		return v, false
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() || !v.Elem().CanInterface() {
			return v, false
		}
		e := v.Elem()
		if isValueInterface(e.Type()) {
			inner := reflect.ValueOf(Unwrap(e.Interface()))
			d, _ := deep(inner, depth+1)
			return d, true
		}
		return deep(e, depth+1)
	case reflect.Map:
		if v.IsNil() || !hasIface(v.Type()) {
			return v, false
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		changed := false
		it := v.MapRange()
		for it.Next() {
			e, c := deep(it.Value(), depth+1)
			changed = changed || c
			out.SetMapIndex(it.Key(), settable(e, v.Type().Elem()))
		}
		if !changed {
			return v, false
		}
		return out, true
	case reflect.Slice, reflect.Array:
		if (v.Kind() == reflect.Slice && v.IsNil()) || !hasIface(v.Type()) {
			return v, false
		}
		var out reflect.Value
		if v.Kind() == reflect.Slice {
			out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		} else {
			out = reflect.New(v.Type()).Elem()
		}
		changed := false
		for i := 0; i < v.Len(); i++ {
			e, c := deep(v.Index(i), depth+1)
			changed = changed || c
			out.Index(i).Set(settable(e, v.Type().Elem()))
		}
		if !changed {
			return v, false
		}
		return out, true
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, c := deep(v.Elem(), depth+1)
		if !c {
			return v, false
		}
		p := reflect.New(e.Type())
		p.Elem().Set(e)
		return p, true
	}
	return v, false
}

// settable converts e for storing in a container of element type t.
func settable(e reflect.Value, t reflect.Type) reflect.Value {
	if !e.IsValid() {
		return reflect.Zero(t)
	}
	if e.Type().AssignableTo(t) {
		return e
	}
	return e.Convert(t)
}

// hasIface reports whether values of t can hold interface values.
func hasIface(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Map:
		return hasIface(t.Key()) || hasIface(t.Elem())
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return hasIface(t.Elem())
	}
	return false
}
