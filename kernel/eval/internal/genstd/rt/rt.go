// Package rt is the compiled support of the interpreted standard library
// (package genstd): what interpreted code cannot do itself, or does too
// slowly.
package rt

import (
	"iter"
	"math"
	"reflect"
	"sort"
)

// SortSlice sorts the slice x with less, as slices.SortFunc sorts (the same
// pattern-defeating quicksort, so equal elements end in the same order).
func SortSlice(x any, less func(i, j int) bool) { sort.Slice(x, less) }

// SortSliceStable sorts the slice x with less keeping equal elements in
// their order, as slices.SortStableFunc does.
func SortSliceStable(x any, less func(i, j int) bool) { sort.SliceStable(x, less) }

// SignBit reports whether x is a floating-point number with its sign bit
// set (-0.0 among them); false for other kinds.
func SignBit(x any) bool {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return math.Signbit(v.Float())
	}
	return false
}

// Clear deletes every entry of the map x, or zeroes every element of the
// slice x (the builtin clear); nil and other kinds are left alone.
func Clear(x any) {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		v.Clear()
	}
}

// Pull2 is iter.Pull2 for an iterator of interface values: the coroutine
// machinery of the standard library, for the interpreted iter.Pull and
// iter.Pull2.
func Pull2(seq func(yield func(any, any) bool)) (next func() (any, any, bool), stop func()) {
	return iter.Pull2(iter.Seq2[any, any](seq))
}

// Symbols is the package's symbol table for the interpreter.
func Symbols() map[string]reflect.Value {
	return map[string]reflect.Value{
		"Clear":           reflect.ValueOf(Clear),
		"Pull2":           reflect.ValueOf(Pull2),
		"SignBit":         reflect.ValueOf(SignBit),
		"SortSlice":       reflect.ValueOf(SortSlice),
		"SortSliceStable": reflect.ValueOf(SortSliceStable),
	}
}
