package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/conclab/conclab/kernel/eval/internal/reach"
	"github.com/conclab/conclab/kernel/eval/internal/vfmt"
)

// Printing values of cell-declared types as Go prints them (feature and
// interpreter limit at once): yaegi gives a struct declared in a cell an
// unnamed reflect type with every field exported (x becomes Xx) and no
// methods, so compiled fmt prints {Xx:1 Xy:2}, struct { Xx int; Xy int }{...}
// and never calls a String method of a field. Three things make printing
// match `go run`:
//
//   - the typenames pass tags the first field of every struct type in a
//     cell with the type's Go name, its fields' names and their declared
//     cell types (vfmt.Tag); the tags also make the reflect types of two
//     struct types with the same fields different, as they are in Go;
//   - the session registers the String, Error, GoString and Format methods
//     of cell types (registerMethods) as functions of the interpreter;
//   - fmt's and log's printing functions, and a cell's displayed value, go
//     through package vfmt, which prints with the tags and the methods; the
//     fmtargs pass names the static type of arguments reflection cannot tell
//     (named types that are not structs: type Celsius float64).

// passTypeNames tags the struct types of a segment (see above).
func passTypeNames(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		st, ok := n.(*ast.StructType)
		if !ok || st.Fields == nil || len(st.Fields.List) == 0 {
			continue
		}
		name := ""
		var tparams []string
		if ts, ok := tc.parents[st].(*ast.TypeSpec); ok && ts.Type == st {
			name = "main." + ts.Name.Name
			if ts.TypeParams != nil {
				for _, f := range ts.TypeParams.List {
					for _, id := range f.Names {
						tparams = append(tparams, id.Name)
					}
				}
			}
		}
		var fields []string
		decl := map[int]string{}
		for _, f := range st.Fields.List {
			t := tc.c.info.Types[f.Type].Type
			d := tc.cellTypeName(t)
			names := f.Names
			if len(names) == 0 {
				fields = append(fields, embeddedName(f.Type))
				if d != "" {
					decl[len(fields)-1] = d
				}
				continue
			}
			for _, id := range names {
				fields = append(fields, id.Name)
				if d != "" {
					decl[len(fields)-1] = d
				}
			}
		}
		for gi, f := range st.Fields.List {
			var add []string
			if gi == 0 {
				add = append(add, vfmt.TagKey+":"+strconv.Quote(vfmt.Tag(name, fields, decl, tparams)))
			}
			if unexportedGroup(f) {
				// yaegi exports every field (x is Xx): encoding/json
				// would marshal them. Go's json skips unexported fields.
				add = append(add, `json:"-"`)
			}
			if len(add) == 0 {
				continue
			}
			if f.Tag == nil {
				out = append(out, tc.insertAt(f.Type.End(), " `"+strings.Join(add, " ")+"`"))
				continue
			}
			old, err := strconv.Unquote(f.Tag.Value)
			if err != nil {
				continue
			}
			if unexportedGroup(f) {
				// Go's json ignores an unexported field, tag or not.
				old = jsonTagRE.ReplaceAllString(old, "")
			}
			nt := strings.TrimSpace(old + " " + strings.Join(add, " "))
			lit := "`" + nt + "`"
			if strings.Contains(nt, "`") {
				lit = strconv.Quote(nt)
			}
			out = append(out, tc.replace(f.Tag.Pos(), f.Tag.End(), lit))
		}
	}
	return out
}

var jsonTagRE = regexp.MustCompile(`(^|\s)json:"(\\.|[^"\\])*"`)

// unexportedGroup reports whether a field group declares only unexported
// fields (embedded fields excluded: json promotes their exported fields).
func unexportedGroup(f *ast.Field) bool {
	if len(f.Names) == 0 {
		return false
	}
	for _, n := range f.Names {
		if n.IsExported() || n.Name == "_" {
			return false
		}
	}
	return true
}

// embeddedName is the field name of an embedded field of type e.
func embeddedName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

// cellTypeName writes t as Go names it ("main.Celsius", "[]main.Money",
// a type parameter's name) when it mentions a type declared in a cell or a
// type parameter, "" otherwise.
func (tc *typedCtx) cellTypeName(t types.Type) string {
	if t == nil || !mentionsCell(t) {
		return ""
	}
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// mentionsCell reports whether t mentions a named type of the cells or a
// type parameter.
func mentionsCell(t types.Type) bool {
	found := false
	seen := map[types.Type]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		if found || t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch x := t.(type) {
		case *types.Named:
			if x.Obj().Pkg() != nil && x.Obj().Pkg().Path() == "main" {
				found = true
				return
			}
			for i := 0; i < x.TypeArgs().Len(); i++ {
				walk(x.TypeArgs().At(i))
			}
		case *types.TypeParam:
			found = true
		case *types.Pointer:
			walk(x.Elem())
		case *types.Slice:
			walk(x.Elem())
		case *types.Array:
			walk(x.Elem())
		case *types.Map:
			walk(x.Key())
			walk(x.Elem())
		case *types.Chan:
			walk(x.Elem())
		}
	}
	walk(t)
	return found
}

// printFuncs are the functions whose arguments the fmtargs pass names,
// by package path and name: the index of their first printed argument.
var printFuncs = map[string]map[string]int{
	"fmt": {"Print": 0, "Println": 0, "Printf": 1, "Sprint": 0, "Sprintln": 0, "Sprintf": 1,
		"Fprint": 1, "Fprintln": 1, "Fprintf": 2, "Errorf": 1, "Append": 1, "Appendln": 1, "Appendf": 2},
	"log": {"Print": 0, "Println": 0, "Printf": 1, "Fatal": 0, "Fatalln": 0, "Fatalf": 1,
		"Panic": 0, "Panicln": 0, "Panicf": 1},
}

// passFmtArgs names the static type of print arguments whose type is a
// named cell type that is not a struct (type Celsius float64: reflection
// sees a float64), so that %T, %#v and the type's methods inside composite
// values print as in Go (see vfmt.Named).
func passFmtArgs(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		call, ok := n.(*ast.CallExpr)
		if !ok || call.Ellipsis.IsValid() {
			continue
		}
		first, ok := tc.printFunc(call)
		if !ok {
			continue
		}
		for i := first; i < len(call.Args); i++ {
			a := call.Args[i]
			t := tc.c.info.Types[a].Type
			if t == nil || !namedNonStruct(t) {
				continue
			}
			if _, tuple := t.(*types.Tuple); tuple {
				continue
			}
			name := types.TypeString(t, func(p *types.Package) string { return p.Name() })
			out = append(out,
				tc.insertAt(a.Pos(), sinkName+".Named("),
				tc.insertAt(a.End(), ", "+strconv.Quote(name)+")"))
		}
	}
	return out
}

// sinkName is the name cells know the session's sink package by.
const sinkName = "_conclabsink"

// printFunc reports whether call calls a function of printFuncs, and the
// index of its first printed argument.
func (tc *typedCtx) printFunc(call *ast.CallExpr) (int, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return 0, false
	}
	f, ok := tc.c.info.Uses[sel.Sel].(*types.Func)
	if !ok || f.Pkg() == nil {
		return 0, false
	}
	if sig, ok := f.Type().(*types.Signature); !ok || sig.Recv() != nil {
		return 0, false
	}
	i, ok := printFuncs[f.Pkg().Path()][f.Name()]
	return i, ok
}

// namedNonStruct reports whether t mentions a named cell type whose
// underlying type is not a struct (those reflection cannot tell).
func namedNonStruct(t types.Type) bool {
	found := false
	seen := map[types.Type]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		if found || t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch x := t.(type) {
		case *types.Named:
			if x.Obj().Pkg() != nil && x.Obj().Pkg().Path() == "main" {
				if _, isStruct := x.Underlying().(*types.Struct); !isStruct && x.TypeParams().Len() == 0 {
					if _, isIface := x.Underlying().(*types.Interface); !isIface {
						found = true
						return
					}
				}
			}
		case *types.Pointer:
			walk(x.Elem())
		case *types.Slice:
			walk(x.Elem())
		case *types.Array:
			walk(x.Elem())
		case *types.Map:
			walk(x.Key())
			walk(x.Elem())
		}
	}
	walk(t)
	return found
}

// methodRegistry holds the printing methods of the session's cell types.
type methodRegistry struct {
	mu sync.Mutex
	m  map[string]vfmt.Methods
}

func (r *methodRegistry) lookup(name string) vfmt.Methods {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[name]
}

// set records one method (called from cells: the registration source).
func (r *methodRegistry) set(typ, method string, f any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]vfmt.Methods{}
	}
	m := r.m[typ]
	switch method {
	case "String":
		m.String, _ = f.(func(any) string)
	case "Error":
		m.Error, _ = f.(func(any) string)
	case "GoString":
		m.GoString, _ = f.(func(any) string)
	case "Format":
		m.Format, _ = f.(func(any, fmt.State, rune))
	}
	r.m[typ] = m
}

// into stores v in *dst, converting it to dst's type (a registered method
// gets its receiver from compiled code as a value of the interpreter's
// reflect type, or inside an interpreter wrapper).
func into(dst, v any) {
	d := reflect.ValueOf(dst)
	if d.Kind() != reflect.Pointer || d.IsNil() {
		return
	}
	d = d.Elem()
	s := reflect.ValueOf(unwrapAny(v))
	switch {
	case !s.IsValid():
	case s.Type().AssignableTo(d.Type()):
		d.Set(s)
	case s.Type().ConvertibleTo(d.Type()):
		d.Set(s.Convert(d.Type()))
	}
}

// unwrapAny returns the value inside an interpreter wrapper.
func unwrapAny(v any) any { return reach.Inner(v) }

// printingMethods are the methods fmt calls, with their source signature.
var printingMethods = []struct{ name, sig string }{
	{"Format", "func(v interface{}, f _conclabfmt.State, c rune)"},
	{"GoString", "func(v interface{}) string"},
	{"Error", "func(v interface{}) string"},
	{"String", "func(v interface{}) string"},
}

// registrations returns the source registering the printing methods of the
// cell types named in types (after the segment c declared them or their
// methods), "" when there are none.
func registrations(c *checked, typeNames []string) string {
	if c == nil || c.pkg == nil {
		return ""
	}
	sort.Strings(typeNames)
	var b strings.Builder
	for _, n := range typeNames {
		tn, ok := c.pkg.Scope().Lookup(n).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok || named.TypeParams().Len() > 0 {
			continue
		}
		for _, recv := range []types.Type{named, types.NewPointer(named)} {
			ms := types.NewMethodSet(recv)
			star := ""
			if _, isPtr := recv.(*types.Pointer); isPtr {
				star = "*"
			}
			for _, pm := range printingMethods {
				sel := ms.Lookup(nil, pm.name)
				if sel == nil || !printingSignature(pm.name, sel.Obj().Type().(*types.Signature)) {
					continue
				}
				if star != "" && types.NewMethodSet(named).Lookup(nil, pm.name) != nil {
					continue // registered for the value type, which *T's calls reach
				}
				call := "x." + pm.name + "()"
				ret := "return "
				if pm.name == "Format" {
					call, ret = "x.Format(f, c)", ""
				}
				fmt.Fprintf(&b, "%s.Method(%q, %q, %s { var x %s%s; %s.Into(&x, v); %s%s })\n",
					sinkName, star+"main."+n, pm.name, pm.sig, star, n, sinkName, ret, call)
			}
		}
	}
	return b.String()
}

func printingSignature(name string, sig *types.Signature) bool {
	switch name {
	case "Format":
		return sig.Params().Len() == 2 && sig.Results().Len() == 0
	default:
		return sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String])
	}
}

// token keeps the import used by edits that other files build.
var _ = token.NoPos

// unbox returns the value a yaegi recover() result holds (see passRecover).
func unbox(v any) any {
	if rv, ok := v.(reflect.Value); ok {
		if !rv.IsValid() || !rv.CanInterface() {
			return nil
		}
		v = rv.Interface()
	}
	return translatePanic(reach.Unwrap(v))
}

// cellError is an error of a cell type for compiled code: the value and
// its Error method (the form of the interpreter's interface wrappers, so
// reach.Inner and vfmt see the value inside).
type cellError struct {
	IValue any
	WError func() string
}

func (e cellError) Error() string { return e.WError() }

// asError returns v as an error when v is a value of a cell type with an
// Error method (see passAssertError).
func (s *Session) asError(v any) (error, bool) {
	v = unbox(v)
	if v == nil {
		return nil, false
	}
	name := vfmt.GoType(reflect.TypeOf(v))
	if m := s.printers.lookup(name); m.Error != nil {
		return cellError{IValue: v, WError: func() string { return m.Error(v) }}, true
	}
	return nil, false
}

// notError is the panic of a failed x.(error), as Go words it.
func notError(v any) error {
	v = unbox(v)
	if v == nil {
		return &runtimeError{"interface conversion: interface is nil, not error"}
	}
	return &runtimeError{"interface conversion: " + vfmt.GoType(reflect.TypeOf(v)) + " is not error: missing method Error"}
}

// runtimeError is a runtime.Error made by the session.
type runtimeError struct{ msg string }

func (e *runtimeError) Error() string { return e.msg }
func (e *runtimeError) RuntimeError() {}

// selfMethod is the method the selfmethod pass gives the types that cells
// declare methods for: yaegi's interface wrappers (the value a compiled
// function taking an interface receives for a cell value, e.g. a Stringer
// for fmt) hold the value itself only for non-struct types (for a struct,
// the value of its last field), so the session's wrappers have a
// W_conclabSelf field that returns it (see wrappers.go). Only types with
// methods get it: a type with methods is boxed differently by yaegi when
// stored in an interface{} (json would see its box).
const selfMethod = "_conclabSelf"

// passSelfMethod declares selfMethod for each type a declaration segment
// declares methods of (again when an earlier cell did: a redeclared
// method).
func passSelfMethod(tc *typedCtx) []edit {
	if !tc.c.decl {
		return nil
	}
	var out []edit
	done := map[string]bool{}
	for _, d := range tc.c.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || !tc.c.inSeg(fd.Pos()) || fd.Name.Name == selfMethod {
			continue
		}
		recv := fd.Recv.List[0].Type
		if st, ok := recv.(*ast.StarExpr); ok {
			recv = st.X
		}
		name := recvTypeName(recv)
		if name == "" || done[name] {
			continue
		}
		obj, ok := tc.c.pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || obj.IsAlias() {
			continue
		}
		switch obj.Type().Underlying().(type) {
		case *types.Interface, *types.Pointer:
			continue
		}
		done[name] = true
		out = append(out, tc.insertAt(fd.End(), "; func (x "+tc.text(recv)+") "+selfMethod+"() interface{} { return x }"))
	}
	return out
}

// jsonUnmarshal is json.Unmarshal in cells: the error for a value of the
// wrong type names the struct the field belongs to as Go does (the type of
// a cell struct has no name for reflection: "Go struct field .id").
func jsonUnmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Struct == "" && ute.Field != "" && v != nil {
		if name := innermostStruct(reflect.TypeOf(v), strings.Split(ute.Field, ".")); name != "" {
			ute.Struct = name
		}
	}
	return err
}

// innermostStruct returns the Go name (without package) of the struct
// holding the last field of a JSON field path in values of t.
func innermostStruct(t reflect.Type, path []string) string {
	elem := func(t reflect.Type) reflect.Type {
		for {
			switch t.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
				t = t.Elem()
			default:
				return t
			}
		}
	}
	t = elem(t)
	for _, p := range path[:len(path)-1] {
		if t.Kind() != reflect.Struct {
			return ""
		}
		found := false
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := f.Name
			if tag, ok := f.Tag.Lookup("json"); ok {
				if n, _, _ := strings.Cut(tag, ","); n != "" {
					name = n
				}
			}
			if name == p {
				t, found = elem(f.Type), true
				break
			}
		}
		if !found {
			return ""
		}
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	n := vfmt.GoType(t)
	if i := strings.LastIndexByte(n, '.'); i >= 0 && !strings.Contains(n, " ") {
		return n[i+1:]
	}
	return ""
}

// jsonMarshal and jsonMarshalIndent are json's in cells: a value of a cell
// type with methods stored in an interface{} (a map[string]any, []any) is
// boxed by yaegi, and json would marshal the box ({}); the boxes are
// opened first.
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(reach.Deep(v)) }

func jsonMarshalIndent(v any, prefix, indent string) ([]byte, error) {
	return json.MarshalIndent(reach.Deep(v), prefix, indent)
}
