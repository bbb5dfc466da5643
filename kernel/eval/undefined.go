package eval

import (
	"fmt"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"
)

// yaegi v0.16 reports a name nothing declares in several misleading ways,
// depending on where it is used: "undefined: x" (the good case), "constant
// definition loop" (on another line than the use), a panic of its compiler
// ("invalid memory address or nil pointer dereference", "index out of
// range"), or, when an earlier failed cell left a placeholder behind,
// "incomplete type x". Running a later cell of a notebook first, after a
// restart, meets all of them. So when a source does not compile, the
// session looks for the names it uses that nothing declares — not the
// source itself, not the session (the interpreter's main scope), not a
// package, not Go's universe — and, if there are any, reports them as Go
// does ("undefined: x", at the line of the first use) instead of the
// interpreter's message. And a source that fails to compile leaves no
// symbols behind (see scopeSnapshot).

// undefinedName is a use of a name nothing declares.
type undefinedName struct {
	name string
	line int // 0-based line within the source
	col  int // 1-based column
}

// undefinedNames returns the first use of each name src uses and neither
// declares nor defined reports, in source order. src is a statement list
// or a list of declarations (as the segments of a cell are); it returns nil
// for a source that parses as neither, or that has a dot import (its names
// cannot be told apart). Composite literal keys, selectors' right-hand
// sides and labels are not uses of names.
func undefinedNames(src string, defined func(name string) bool, importName func(path string) string) []undefinedName {
	fset := token.NewFileSet()
	prefixLines := 2
	f, err := parser.ParseFile(fset, "", "package main\nfunc _() {\n"+src+"\n}", 0)
	if err != nil {
		prefixLines = 1
		if f, err = parser.ParseFile(fset, "", "package main\n"+src, 0); err != nil {
			return nil
		}
	}
	imported := map[string]bool{}
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return nil
		}
		name := importName(p)
		if is.Name != nil {
			name = is.Name.Name
		}
		if name == "." {
			return nil
		}
		imported[name] = true
	}
	var out []undefinedName
	seen := map[string]bool{}
	for _, id := range f.Unresolved {
		if seen[id.Name] || imported[id.Name] || defined(id.Name) {
			continue
		}
		seen[id.Name] = true
		pos := fset.Position(id.Pos())
		out = append(out, undefinedName{name: id.Name, line: pos.Line - 1 - prefixLines, col: pos.Column})
	}
	return out
}

// undefinedError is the compile error for the undefined names u of src,
// whose first line is cell line line.
func undefinedError(u []undefinedName, src string, line int) *Error {
	e := &Error{Name: "CompileError", Value: "undefined: " + u[0].name, Line: line + u[0].line}
	for _, x := range u {
		e.Traceback = append(e.Traceback, fmt.Sprintf("cell line %d: undefined: %s", line+x.line, x.name))
		if l := srcLine(src, x.line); l != "" {
			e.Traceback = append(e.Traceback, "    "+l)
		}
	}
	if len(u) > 1 {
		names := make([]string, len(u))
		for i, x := range u {
			names[i] = x.name
		}
		more := names[1:]
		if len(more) > 4 {
			more = append(more[:4:4], fmt.Sprintf("and %d more", len(more)-4))
		}
		e.Value += " (also undefined: " + strings.Join(more, ", ") + ")"
	}
	e.Traceback = append(e.Traceback, "(run the cells that define them first, or check the spelling)")
	return e
}

// isDefined reports whether name means something in the session's cells:
// a predeclared identifier, a package (linked or imported), or a symbol of
// the interpreter's main scope that is not a placeholder. When yaegi's
// layout is not the expected one, every name counts as defined (so no
// error is misreported).
func (s *Session) isDefined(name string) bool {
	if name == "_" || types.Universe.Lookup(name) != nil {
		return true
	}
	if _, ok := s.resolvePackage(name); ok {
		return true
	}
	sc := interpScope{s.in}
	main, ok := sc.mainSym()
	if !ok {
		return true
	}
	if realSymbol(main.MapIndex(reflect.ValueOf(name))) || realSymbol(main.MapIndex(reflect.ValueOf(importKey(name)))) {
		return true
	}
	uni, ok := sc.universeSym()
	if !ok {
		return true
	}
	return realSymbol(uni.MapIndex(reflect.ValueOf(name)))
}

// yaegi's symbol kinds (interp/scope.go): undefSym is 0, typeSym 7.
const (
	yaegiUndefSym = 0
	yaegiTypeSym  = 7
)

// realSymbol reports whether sym (a *symbol of yaegi, or invalid) declares
// something: not absent, not undefSym, not an incomplete type placeholder
// (what yaegi leaves for a name it could not resolve yet).
func realSymbol(sym reflect.Value) (ok bool) {
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
	case yaegiUndefSym:
		return false
	case yaegiTypeSym:
		typ := sym.Elem().FieldByName("typ")
		if typ.IsValid() && typ.Kind() == reflect.Pointer && !typ.IsNil() {
			if inc := typ.Elem().FieldByName("incomplete"); inc.IsValid() && inc.Kind() == reflect.Bool && inc.Bool() {
				return false
			}
		}
	}
	return true
}

// scopeSnapshot is the main scope's symbol table before a compilation:
// name -> *symbol.
type scopeSnapshot struct {
	m    reflect.Value // the live map
	syms map[string]reflect.Value
}

// universeSym returns the universe scope's sym map (predeclared names and
// the packages ImportUsed made available by name).
func (sc interpScope) universeSym() (m reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			m, ok = reflect.Value{}, false
		}
	}()
	u := reflect.ValueOf(sc.in).Elem().FieldByName("universe")
	if !u.IsValid() || u.Kind() != reflect.Pointer || u.IsNil() {
		return reflect.Value{}, false
	}
	symf := u.Elem().FieldByName("sym")
	if !symf.IsValid() || symf.Kind() != reflect.Map || symf.Type().Key().Kind() != reflect.String {
		return reflect.Value{}, false
	}
	return exposed(symf), true
}

// snapshot records the main scope's symbols (ok false when yaegi's
// layout is not the expected one).
func (sc interpScope) snapshot() (snap scopeSnapshot, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	m, ok := sc.mainSym()
	if !ok {
		return scopeSnapshot{}, false
	}
	snap = scopeSnapshot{m: m, syms: make(map[string]reflect.Value, m.Len())}
	it := m.MapRange()
	for it.Next() {
		snap.syms[it.Key().String()] = it.Value()
	}
	return snap, true
}

// restore undoes what a failed compilation did to the main scope: symbols
// it added (placeholders for names it could not resolve, variables of the
// statements it compiled, imports) are removed and symbols it replaced are
// put back, so a cell that did not compile changes nothing (as in Go) and
// a later cell does not meet "incomplete type x" for its placeholder.
func (snap scopeSnapshot) restore() {
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
