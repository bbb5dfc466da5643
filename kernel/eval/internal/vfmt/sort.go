package vfmt

import (
	"cmp"
	"reflect"
	"slices"
)

// sortedKeys returns a map's keys in the order fmt prints them (the order
// of internal/fmtsort: numbers and strings ascending, false before true,
// pointers and channels by address, structs and arrays element by element,
// interfaces by their dynamic type, then value).
func sortedKeys(m reflect.Value) []reflect.Value {
	keys := m.MapKeys()
	slices.SortStableFunc(keys, compare)
	return keys
}

func compare(a, b reflect.Value) int {
	if a.Type() != b.Type() {
		return -1
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		if c := cmp.Compare(real(x), real(y)); c != 0 {
			return c
		}
		return cmp.Compare(imag(x), imag(y))
	case reflect.Bool:
		x, y := a.Bool(), b.Bool()
		switch {
		case x == y:
			return 0
		case x:
			return 1
		}
		return -1
	case reflect.Pointer, reflect.UnsafePointer:
		return cmp.Compare(a.Pointer(), b.Pointer())
	case reflect.Chan:
		if c, ok := nilCompare(a, b); ok {
			return c
		}
		return cmp.Compare(a.Pointer(), b.Pointer())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if c := compare(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
		return 0
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if c := compare(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
		return 0
	case reflect.Interface:
		if c, ok := nilCompare(a, b); ok {
			return c
		}
		if c := compare(reflect.ValueOf(a.Elem().Type()), reflect.ValueOf(b.Elem().Type())); c != 0 {
			return c
		}
		return compare(a.Elem(), b.Elem())
	}
	return 0
}

func nilCompare(a, b reflect.Value) (int, bool) {
	if a.IsNil() {
		if b.IsNil() {
			return 0, true
		}
		return -1, true
	}
	if b.IsNil() {
		return 1, true
	}
	return 0, false
}
