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
