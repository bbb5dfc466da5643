// Package rt is the compiled support of the interpreted standard library
// (package genstd): what interpreted code cannot do itself, or does too
// slowly.
package rt

import (
	"iter"
	"math"
	"reflect"
	"sort"
	"sync"
	"unsafe"
	"weak"

	"github.com/conclab/conclab/kernel/eval/internal/reach"
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

var interned sync.Map // any(value) -> its token

// Intern returns the token of value: the same for equal values (compared
// as interface values), different for different ones (unique.Make).
func Intern(value any) any {
	if p, ok := interned.Load(value); ok {
		return p
	}
	p, _ := interned.LoadOrStore(value, new(byte))
	return p
}

// Weak is a weak pointer to an object of any type: a weak.Pointer to its
// first byte (weak.Pointer of the interpreted weak package). Comparable:
// two are equal when made from the same object.
type Weak struct{ p weak.Pointer[byte] }

// MakeWeak makes the weak pointer of the object ptr points to.
func MakeWeak(ptr any) Weak {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return Weak{}
	}
	return Weak{weak.Make((*byte)(v.UnsafePointer()))}
}

// WeakValue stores in *dst (dst is a **T) the object of w as a *T, nil
// once the object is gone.
func WeakValue(w Weak, dst any) {
	d := reflect.ValueOf(dst).Elem()
	b := w.p.Value()
	if b == nil {
		d.Set(reflect.Zero(d.Type()))
		return
	}
	d.Set(reflect.NewAt(d.Type().Elem(), unsafe.Pointer(b)))
}

// extra are the symbols of build-constrained files (Go 1.27's).
var extra = map[string]reflect.Value{}

// Symbols is the package's symbol table for the interpreter.
func Symbols() map[string]reflect.Value {
	m := map[string]reflect.Value{
		"AddCleanup":             reflect.ValueOf(AddCleanup),
		"ConvertAssign":          reflect.ValueOf(ConvertAssign),
		"HKDFExpand":             reflect.ValueOf(HKDFExpand),
		"HKDFExtract":            reflect.ValueOf(HKDFExtract),
		"HKDFKey":                reflect.ValueOf(HKDFKey),
		"MaphashComparable":      reflect.ValueOf(MaphashComparable),
		"MaphashWriteComparable": reflect.ValueOf(MaphashWriteComparable),
		"PBKDF2Key":              reflect.ValueOf(PBKDF2Key),
		"Clear":                  reflect.ValueOf(Clear),
		"Intern":                 reflect.ValueOf(Intern),
		"MakeWeak":               reflect.ValueOf(MakeWeak),
		"Weak":                   reflect.ValueOf((*Weak)(nil)),
		"WeakValue":              reflect.ValueOf(WeakValue),
		"ErrorsAs":               reflect.ValueOf(ErrorsAs),
		"ErrorsIs":               reflect.ValueOf(ErrorsIs),
		"Pull2":                  reflect.ValueOf(Pull2),
		"SignBit":                reflect.ValueOf(SignBit),
		"SortSlice":              reflect.ValueOf(SortSlice),
		"SortSliceStable":        reflect.ValueOf(SortSliceStable),
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// ErrorsIs is errors.Is for errors that may be values of cell types: the
// interpreter hands compiled code those inside wrappers, which compare
// unequal to everything; the values inside are compared instead.
func ErrorsIs(err, target error) bool {
	if err == nil || target == nil {
		return err == target
	}
	tv := reach.Inner(target)
	comparable := tv != nil && reflect.TypeOf(tv).Comparable()
	return is(err, target, tv, comparable)
}

func is(err, target error, tv any, comparable bool) bool {
	for err != nil {
		if ev := reach.Inner(err); comparable && ev != nil && reflect.TypeOf(ev) == reflect.TypeOf(tv) && ev == tv {
			return true
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(target) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if is(e, target, tv, comparable) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// ErrorsAs is errors.As for errors and targets of cell types: a value
// inside an interpreter wrapper is assignable to *target when its type is.
func ErrorsAs(err error, target any) bool {
	if err == nil {
		return false
	}
	tv := reflect.ValueOf(target)
	if !tv.IsValid() || tv.Kind() != reflect.Pointer || tv.IsNil() {
		panic("errors: target must be a non-nil pointer")
	}
	return as(err, target, tv, tv.Type().Elem())
}

func as(err error, target any, tv reflect.Value, tt reflect.Type) bool {
	for err != nil {
		if ev := reach.Inner(err); ev != nil && reflect.TypeOf(ev).AssignableTo(tt) {
			tv.Elem().Set(reflect.ValueOf(ev))
			return true
		}
		if reflect.TypeOf(err).AssignableTo(tt) {
			tv.Elem().Set(reflect.ValueOf(err))
			return true
		}
		if x, ok := err.(interface{ As(any) bool }); ok && x.As(target) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if e != nil && as(e, target, tv, tt) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}
