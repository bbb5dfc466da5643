// Package reach holds every use conclab makes of yaegi's unexported state
// and of its implementation details (yaegi v0.16.1, the interpreter's last
// release). Nothing else in conclab reaches into the interpreter: the rest
// uses its public API. Each reach checks the layout it expects and does
// nothing (reports failure) when it differs; TestLayout fails loudly, so an
// interpreter of another layout is caught by the tests, not by users.
package reach

import (
	"bytes"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/traefik/yaegi/interp"
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

// Interp reaches into one interpreter's unexported state: its scopes, its
// run id, its global frame. Its methods do nothing and report false when
// the layout is not the expected one.
type Interp struct{ in *interp.Interpreter }

// Of returns the Interp of in.
func Of(in *interp.Interpreter) Interp { return Interp{in} }

// exposed makes an unexported field settable.
func exposed(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// scopeSym returns the sym map (map[string]*symbol) of a scope: the main
// scope (interp.scopes["main"]) or the universe (interp.universe).
func (r Interp) scopeSym(universe bool) (m reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			m, ok = reflect.Value{}, false
		}
	}()
	var s reflect.Value
	if universe {
		s = reflect.ValueOf(r.in).Elem().FieldByName("universe")
	} else {
		f := reflect.ValueOf(r.in).Elem().FieldByName("scopes")
		if !f.IsValid() || f.Kind() != reflect.Map {
			return reflect.Value{}, false
		}
		s = exposed(f).MapIndex(reflect.ValueOf("main"))
	}
	if !s.IsValid() || s.Kind() != reflect.Pointer || s.IsNil() {
		return reflect.Value{}, false
	}
	symf := s.Elem().FieldByName("sym")
	if !symf.IsValid() || symf.Kind() != reflect.Map || symf.Type().Key().Kind() != reflect.String {
		return reflect.Value{}, false
	}
	return exposed(symf), true
}

// ImportKey is the key yaegi gives an import named name in the main scope
// of sources passed to Eval/Compile (their file name is "_.go").
func ImportKey(name string) string { return name + "/" + interp.DefaultSourceName }

// Bound returns the import path name is bound to in the main scope.
func (r Interp) Bound(name string) (p string, ok bool) {
	defer func() {
		if recover() != nil {
			p, ok = "", false
		}
	}()
	m, ok := r.scopeSym(false)
	if !ok {
		return "", false
	}
	sym := m.MapIndex(reflect.ValueOf(ImportKey(name)))
	if !sym.IsValid() || sym.Kind() != reflect.Pointer || sym.IsNil() {
		return "", false
	}
	typ := sym.Elem().FieldByName("typ")
	if !typ.IsValid() || typ.Kind() != reflect.Pointer || typ.IsNil() {
		return "", false
	}
	pf := typ.Elem().FieldByName("path")
	if !pf.IsValid() || pf.Kind() != reflect.String {
		return "", false
	}
	return pf.String(), true
}

// Unbind removes the import binding of name from the main scope.
func (r Interp) Unbind(name string) {
	defer func() { _ = recover() }()
	if m, ok := r.scopeSym(false); ok {
		m.SetMapIndex(reflect.ValueOf(ImportKey(name)), reflect.Value{})
	}
}

// ForgetType removes name from the main scope (before a cell declares a
// type of that name again: yaegi keeps the first declaration otherwise);
// it reports whether it did.
func (r Interp) ForgetType(name string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	sym, ok := r.scopeSym(false)
	if !ok {
		return false
	}
	key := reflect.ValueOf(name)
	if !sym.MapIndex(key).IsValid() {
		return false
	}
	sym.SetMapIndex(key, reflect.Value{})
	return true
}

// yaegi's symbol kinds (interp/scope.go): undefSym is 0, typeSym 7.
const (
	undefSym = 0
	typeSym  = 7
)

// Declared reports whether name (or an import named name) is declared in
// the main scope or the universe by something other than a placeholder.
// known is false when the layout is not the expected one.
func (r Interp) Declared(name string) (declared, known bool) {
	main, ok := r.scopeSym(false)
	if !ok {
		return false, false
	}
	if real(main.MapIndex(reflect.ValueOf(name))) || real(main.MapIndex(reflect.ValueOf(ImportKey(name)))) {
		return true, true
	}
	uni, ok := r.scopeSym(true)
	if !ok {
		return false, false
	}
	return real(uni.MapIndex(reflect.ValueOf(name))), true
}

// real reports whether sym (a *symbol, or invalid) declares something: not
// absent, not undefSym, not an incomplete type placeholder (what yaegi
// leaves for a name it could not resolve yet).
func real(sym reflect.Value) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = true // unexpected layout: assume declared
		}
	}()
	if !sym.IsValid() || sym.Kind() != reflect.Pointer || sym.IsNil() {
		return false
	}
	kind := sym.Elem().FieldByName("kind")
	if !kind.IsValid() || !kind.CanUint() {
		return true
	}
	switch kind.Uint() {
	case undefSym:
		return false
	case typeSym:
		typ := sym.Elem().FieldByName("typ")
		if typ.IsValid() && typ.Kind() == reflect.Pointer && !typ.IsNil() {
			if inc := typ.Elem().FieldByName("incomplete"); inc.IsValid() && inc.Kind() == reflect.Bool && inc.Bool() {
				return false
			}
		}
	}
	return true
}

// Snapshot is the main scope's symbol table before a compilation.
type Snapshot struct {
	m    reflect.Value // the live map
	syms map[string]reflect.Value
}

// Snapshot records the main scope's symbols (ok false when the layout is
// not the expected one).
func (r Interp) Snapshot() (snap Snapshot, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	m, ok := r.scopeSym(false)
	if !ok {
		return Snapshot{}, false
	}
	snap = Snapshot{m: m, syms: make(map[string]reflect.Value, m.Len())}
	it := m.MapRange()
	for it.Next() {
		snap.syms[it.Key().String()] = it.Value()
	}
	return snap, true
}

// Restore undoes what a failed compilation did to the main scope: symbols
// it added (placeholders for names it could not resolve, variables of the
// statements it compiled, imports) are removed and symbols it replaced are
// put back, so a cell that did not compile changes nothing (as in Go) and a
// later cell does not meet "incomplete type x" for its placeholder.
func (snap Snapshot) Restore() {
	defer func() { _ = recover() }()
	if !snap.m.IsValid() {
		return
	}
	var added, replaced []reflect.Value
	it := snap.m.MapRange()
	for it.Next() {
		old, ok := snap.syms[it.Key().String()]
		switch {
		case !ok:
			added = append(added, it.Key())
		case old.Pointer() != it.Value().Pointer():
			replaced = append(replaced, it.Key())
		}
	}
	for _, k := range replaced {
		snap.m.SetMapIndex(k, snap.syms[k.String()])
	}
	for _, k := range added {
		snap.m.SetMapIndex(k, reflect.Value{})
	}
	for k, v := range snap.syms {
		if !snap.m.MapIndex(reflect.ValueOf(k)).IsValid() {
			snap.m.SetMapIndex(reflect.ValueOf(k), v)
		}
	}
}

// RunID returns the address of the interpreter's run id, which yaegi
// increments to stop every interpreted frame (interrupt.go).
func (r Interp) RunID() (p *uint64, ok bool) {
	defer func() {
		if recover() != nil {
			p, ok = nil, false
		}
	}()
	f := reflect.ValueOf(r.in).Elem().FieldByName("id")
	if !f.IsValid() || f.Kind() != reflect.Uint64 {
		return nil, false
	}
	return (*uint64)(unsafe.Pointer(f.UnsafeAddr())), true
}

// LoadRunID reads the run id atomically.
func LoadRunID(p *uint64) uint64 { return atomic.LoadUint64(p) }

// RefreshDone gives the interpreter's global frame a done channel that is
// open: a stopped execution closed its own, and frames made from the
// global frame (calls of cell functions by compiled code) copy it, so their
// channel operations would end at once until the next cell runs. It
// reports whether it did.
func (r Interp) RefreshDone() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	fp := reflect.ValueOf(r.in).Elem().FieldByName("frame")
	if !fp.IsValid() || fp.Kind() != reflect.Pointer || fp.IsNil() {
		return false
	}
	fr := fp.Elem()
	mf, df := fr.FieldByName("mutex"), fr.FieldByName("done")
	if !mf.IsValid() || mf.Type() != reflect.TypeOf(sync.RWMutex{}) || !df.IsValid() || df.Type() != reflect.TypeOf(reflect.SelectCase{}) {
		return false
	}
	mu := (*sync.RWMutex)(unsafe.Pointer(mf.UnsafeAddr()))
	done := reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(make(chan struct{}))}
	mu.Lock()
	exposed(df).Set(reflect.ValueOf(done))
	mu.Unlock()
	return true
}

// ExecuteFrame is the function yaegi's ExecuteWithContext runs a program
// in, on a goroutine of its own.
const ExecuteFrame = "interp.(*Interpreter).ExecuteWithContext.func1"

// OnExecuteGoroutine reports whether the calling goroutine runs a cell's
// statements (yaegi's ExecuteWithContext goroutine).
func OnExecuteGoroutine() bool {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) || len(buf) >= 64<<20 {
			return bytes.Contains(buf[:n], []byte(ExecuteFrame))
		}
		buf = make([]byte, 2*len(buf))
	}
}

// Executing reports whether a goroutine labelled key=value (pprof) is still
// inside ExecuteWithContext.
func Executing(key, value string) bool {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return false
	}
	want := `"` + key + `":"` + value + `"`
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(rec, want) && strings.Contains(rec, "WithContext.func1") {
			return true
		}
	}
	return false
}

// FmtKey is the key of fmt's table in the tables the session gives yaegi's
// Use: "fmt/./fmt" names the import path fmt (Use takes path.Dir of the
// key), and is not "fmt/fmt", whose presence makes Use compile yaegi's own
// generic sources (slices, maps and cmp of Go 1.22), which would clash with
// the session's.
const FmtKey = "fmt/./fmt"

// ErrorWrapper returns the value yaegi registers its wrapper of the error
// interface under (binPkg[""]["_error"], reachable through the public
// Symbols), the key of the wrappers composed for it.
func (r Interp) ErrorWrapper() (reflect.Value, bool) {
	v, ok := r.in.Symbols("")[""]["_error"]
	return v, ok && v.IsValid()
}
