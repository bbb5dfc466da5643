// Package importer gives the kernel's type checker (go/types) the API of
// the packages a cell can use: the compiled packages linked into the
// interpreter, read from their symbol tables (reflect values, the form
// yaegi takes), and the generic standard library the interpreter runs from
// source (package genstd), type-checked from that source.
//
// Types are built from reflection: a named type's methods are its method
// set as reflect reports it (promoted methods included), struct fields keep
// their names, embedding and tags, and constants their exact values. What
// reflection cannot tell is approximated: an untyped bool constant and a
// typed one look alike (both are taken as untyped), and generic types of
// compiled packages appear only instantiated (iter.Seq[string]), which is
// mapped to the interpreted generic type with the type arguments found by
// matching structures. An Importer is safe for concurrent use.
package importer

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Source is a package the interpreter runs from source.
type Source struct {
	// Path is the import path cells use ("slices"), or the overlay's own
	// path for an overlay.
	Path string
	// Files are the package's Go files (name -> source).
	Files map[string]string
	// Overlays is the path of the compiled package whose API this source
	// completes ("sync" for sync.OnceValue), "" for a package of its own.
	Overlays string
}

// Importer implements types.Importer over symbol tables and sources.
type Importer struct {
	tables  []map[string]map[string]reflect.Value
	sources map[string]Source   // by Path
	overlay map[string][]string // compiled path -> overlay paths
	// replaced are the names of compiled packages' members an overlay
	// declares again (errors.Is works on cell types), by path.
	replaced map[string]map[string]bool

	mu      sync.Mutex
	fset    *token.FileSet
	pkgs    map[string]*types.Package // complete packages by path
	bin     map[string]*types.Package // compiled packages before their overlays
	partial map[string]*types.Package // packages made for types only (not importable)
	named   map[reflect.Type]types.Type
	loading map[string]bool
	errs    map[string]error
	// building counts the compiled packages being built from their
	// tables; while one is, instances of generic types are mapped only to
	// interpreted packages already loaded (loading one then could import
	// the package being built, incomplete).
	building  int
	preloaded bool
}

// New returns an Importer over tables (symbol tables, "path/name" -> name
// -> value, earlier tables first) and sources.
func New(tables []map[string]map[string]reflect.Value, sources []Source) *Importer {
	im := &Importer{
		tables:   tables,
		sources:  map[string]Source{},
		overlay:  map[string][]string{},
		replaced: map[string]map[string]bool{},
		fset:     token.NewFileSet(),
		pkgs:     map[string]*types.Package{},
		bin:      map[string]*types.Package{},
		partial:  map[string]*types.Package{},
		named:    map[reflect.Type]types.Type{},
		loading:  map[string]bool{},
		errs:     map[string]error{},
	}
	for _, s := range sources {
		im.sources[s.Path] = s
		if s.Overlays != "" {
			im.overlay[s.Overlays] = append(im.overlay[s.Overlays], s.Path)
			if im.replaced[s.Overlays] == nil {
				im.replaced[s.Overlays] = map[string]bool{}
			}
			for _, n := range topLevelNames(s) {
				im.replaced[s.Overlays][n] = true
			}
		}
	}
	return im
}

// FileSet is the file set positions of source packages refer to.
func (im *Importer) FileSet() *token.FileSet { return im.fset }

// Import returns the package with import path p.
func (im *Importer) Import(p string) (*types.Package, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if !im.preloaded {
		// iter first: its generic types (iter.Seq[string]) appear in the
		// compiled packages' API (strings.Lines).
		im.preloaded = true
		if _, ok := im.sources["iter"]; ok {
			_, _ = im.importLocked("iter")
		}
	}
	return im.importLocked(p)
}

// Has reports whether p is a package the importer provides.
func (im *Importer) Has(p string) bool {
	if _, ok := im.sources[p]; ok {
		return true
	}
	_, ok := im.table(p)
	return ok
}

func (im *Importer) importLocked(p string) (*types.Package, error) {
	if pkg, ok := im.pkgs[p]; ok {
		return pkg, nil
	}
	if err, ok := im.errs[p]; ok {
		return nil, err
	}
	if im.loading[p] {
		if b, ok := im.bin[p]; ok {
			// An overlay importing the package it completes.
			return b, nil
		}
		return nil, fmt.Errorf("import cycle through %s", p)
	}
	im.loading[p] = true
	defer delete(im.loading, p)
	var pkg *types.Package
	var err error
	if src, ok := im.sources[p]; ok && src.Overlays == "" {
		pkg, err = im.checkSource(src)
	} else if _, ok := im.table(p); ok {
		pkg = im.binary(p)
		// Complete already for the overlays, which import it.
		pkg.MarkComplete()
		for _, op := range im.overlay[p] {
			if err = im.merge(pkg, im.sources[op]); err != nil {
				break
			}
		}
	} else if src, ok := im.sources[p]; ok {
		pkg, err = im.checkSource(src)
	} else {
		err = fmt.Errorf("package %s is not linked into the interpreter", p)
	}
	if err != nil {
		im.errs[p] = err
		return nil, err
	}
	pkg.MarkComplete()
	im.pkgs[p] = pkg
	return pkg, nil
}

// table returns the symbol table of compiled package p.
func (im *Importer) table(p string) (map[string]reflect.Value, bool) {
	key := p + "/" + path.Base(p)
	for _, t := range im.tables {
		if m, ok := t[key]; ok {
			return m, true
		}
	}
	for _, t := range im.tables {
		for k, m := range t {
			if path.Dir(k) == p {
				return m, true
			}
		}
	}
	return nil, false
}

// tableName returns the package name the tables give p.
func (im *Importer) tableName(p string) (string, bool) {
	for _, t := range im.tables {
		if _, ok := t[p+"/"+path.Base(p)]; ok {
			return path.Base(p), true
		}
		for k := range t {
			if path.Dir(k) == p {
				return path.Base(k), true
			}
		}
	}
	return "", false
}

// pkgObj returns the (possibly still empty) package object for p.
func (im *Importer) pkgObj(p string) *types.Package {
	if pkg, ok := im.bin[p]; ok {
		return pkg
	}
	if pkg, ok := im.pkgs[p]; ok {
		return pkg
	}
	if pkg, ok := im.partial[p]; ok {
		return pkg
	}
	name, ok := im.tableName(p)
	if !ok {
		name = guessName(p)
	}
	pkg := types.NewPackage(p, name)
	if ok {
		im.bin[p] = pkg
	} else {
		im.partial[p] = pkg
	}
	return pkg
}

// guessName is the package name for an import path no table names:
// the last element, or the one before a major version suffix.
func guessName(p string) string {
	els := strings.Split(p, "/")
	n := els[len(els)-1]
	if len(els) > 1 && len(n) > 1 && n[0] == 'v' && strings.Trim(n[1:], "0123456789") == "" {
		n = els[len(els)-2]
	}
	return strings.NewReplacer("-", "_", ".", "_").Replace(n)
}

// binary builds the package of compiled package p from its symbol table.
func (im *Importer) binary(p string) *types.Package {
	im.building++
	defer func() { im.building-- }()
	pkg := im.pkgObj(p)
	tab, _ := im.table(p)
	names := make([]string, 0, len(tab))
	for n := range tab {
		names = append(names, n)
	}
	sort.Strings(names)
	sc := pkg.Scope()
	for _, n := range names {
		if strings.HasPrefix(n, "_") || sc.Lookup(n) != nil || im.replaced[p][n] {
			continue // interface wrappers; already there; or an overlay's
		}
		v := tab[n]
		if !v.IsValid() {
			continue
		}
		if obj := im.object(pkg, n, v); obj != nil {
			sc.Insert(obj)
		}
	}
	return pkg
}

// object makes the object of one symbol table entry.
func (im *Importer) object(pkg *types.Package, name string, v reflect.Value) types.Object {
	t := v.Type()
	switch {
	case t.Kind() == reflect.Pointer && v.IsNil() && !v.CanSet():
		// A type: (*T)(nil).
		typ := im.typeOf(t.Elem())
		if n, ok := typ.(*types.Named); ok && n.Obj().Name() == name && n.Obj().Pkg() == pkg {
			return n.Obj()
		}
		return types.NewTypeName(token.NoPos, pkg, name, typ)
	case v.CanSet():
		return types.NewVar(token.NoPos, pkg, name, im.typeOf(t))
	case t.Kind() == reflect.Func:
		sig, _ := im.typeOf(t).(*types.Signature)
		if sig == nil {
			return nil
		}
		return types.NewFunc(token.NoPos, pkg, name, sig)
	}
	// A constant.
	if cv, ok := v.Interface().(constant.Value); ok {
		var k types.BasicKind
		switch cv.Kind() {
		case constant.Int:
			k = types.UntypedInt
		case constant.Float:
			k = types.UntypedFloat
		case constant.String:
			k = types.UntypedString
		case constant.Bool:
			k = types.UntypedBool
		case constant.Complex:
			k = types.UntypedComplex
		default:
			return nil
		}
		return types.NewConst(token.NoPos, pkg, name, types.Typ[k], cv)
	}
	cv := constOf(v)
	if cv == nil {
		return types.NewVar(token.NoPos, pkg, name, im.typeOf(t))
	}
	typ := im.typeOf(t)
	if t.Kind() == reflect.Bool && t.Name() == "bool" && t.PkgPath() == "" {
		typ = types.Typ[types.UntypedBool]
	}
	return types.NewConst(token.NoPos, pkg, name, typ, cv)
}

// constOf is the constant value of a typed constant's reflect value.
func constOf(v reflect.Value) constant.Value {
	switch v.Kind() {
	case reflect.Bool:
		return constant.MakeBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return constant.MakeInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return constant.MakeUint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return constant.MakeFloat64(v.Float())
	case reflect.String:
		return constant.MakeString(v.String())
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return constant.BinaryOp(constant.MakeFloat64(real(c)), token.ADD, constant.MakeImag(constant.MakeFloat64(imag(c))))
	}
	return nil
}

var (
	errorRT = reflect.TypeFor[error]()
	anyRT   = reflect.TypeFor[any]()
)

// TypeOf returns the go/types type of reflect type t.
func (im *Importer) TypeOf(t reflect.Type) types.Type {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.typeOf(t)
}

func (im *Importer) typeOf(t reflect.Type) types.Type {
	if x, ok := im.named[t]; ok {
		return x
	}
	if t == errorRT {
		return types.Universe.Lookup("error").Type()
	}
	if t.Name() != "" && t.PkgPath() == "" {
		if b := basicOf(t.Kind()); b != nil && t.Name() == t.Kind().String() {
			return b
		}
		if o := types.Universe.Lookup(t.Name()); o != nil {
			return o.Type()
		}
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return im.namedOf(t)
	}
	return im.literal(t)
}

func basicOf(k reflect.Kind) types.Type {
	m := map[reflect.Kind]types.BasicKind{
		reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
		reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
		reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64, reflect.Uintptr: types.Uintptr,
		reflect.Float32: types.Float32, reflect.Float64: types.Float64, reflect.Complex64: types.Complex64,
		reflect.Complex128: types.Complex128, reflect.String: types.String, reflect.UnsafePointer: types.UnsafePointer,
	}
	if b, ok := m[k]; ok {
		return types.Typ[b]
	}
	return nil
}

// literal builds an unnamed type.
func (im *Importer) literal(t reflect.Type) types.Type {
	if b := basicOf(t.Kind()); b != nil {
		return b
	}
	switch t.Kind() {
	case reflect.Pointer:
		return types.NewPointer(im.typeOf(t.Elem()))
	case reflect.Slice:
		return types.NewSlice(im.typeOf(t.Elem()))
	case reflect.Array:
		return types.NewArray(im.typeOf(t.Elem()), int64(t.Len()))
	case reflect.Map:
		return types.NewMap(im.typeOf(t.Key()), im.typeOf(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		return types.NewChan(dir, im.typeOf(t.Elem()))
	case reflect.Func:
		return im.signature(t, nil, 0)
	case reflect.Struct:
		return im.structOf(t, nil)
	case reflect.Interface:
		return im.interfaceOf(t, nil)
	}
	return types.Typ[types.Invalid]
}

// signature converts func type t, skipping its first skip parameters (the
// receiver of a method value), with receiver recv.
func (im *Importer) signature(t reflect.Type, recv *types.Var, skip int) *types.Signature {
	var params, results []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", im.typeOf(t.In(i))))
	}
	for i := 0; i < t.NumOut(); i++ {
		results = append(results, types.NewParam(token.NoPos, nil, "", im.typeOf(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic())
}

func (im *Importer) structOf(t reflect.Type, owner *types.Package) *types.Struct {
	var fields []*types.Var
	var tags []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		var pkg *types.Package
		if f.PkgPath != "" {
			pkg = im.pkgObj(f.PkgPath)
		} else if owner != nil {
			pkg = owner
		}
		fields = append(fields, types.NewField(token.NoPos, pkg, f.Name, im.typeOf(f.Type), f.Anonymous))
		tags = append(tags, string(f.Tag))
	}
	return types.NewStruct(fields, tags)
}

func (im *Importer) interfaceOf(t reflect.Type, owner *types.Package) *types.Interface {
	var methods []*types.Func
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		pkg := owner
		if m.PkgPath != "" {
			pkg = im.pkgObj(m.PkgPath)
		}
		methods = append(methods, types.NewFunc(token.NoPos, pkg, m.Name, im.signature(m.Type, nil, 0)))
	}
	it := types.NewInterfaceType(methods, nil)
	it.Complete()
	return it
}

// namedOf builds (once) the named type t of a package.
func (im *Importer) namedOf(t reflect.Type) types.Type {
	name := t.Name()
	if i := strings.IndexByte(name, '['); i > 0 {
		inst, later := im.instance(t, name[:i])
		if inst != nil {
			im.named[t] = inst
			return inst
		}
		if later {
			// The generic type's package is being built (a compiled
			// package it imports has the instance in its API): a stand-in
			// for now, not kept, so that the instance is mapped once the
			// package is there.
			defer delete(im.named, t)
		}
	}
	pkg := im.pkgObj(t.PkgPath())
	obj := types.NewTypeName(token.NoPos, pkg, name, nil)
	n := types.NewNamed(obj, nil, nil)
	im.named[t] = n
	if pkg.Scope().Lookup(name) == nil {
		pkg.Scope().Insert(obj)
	}
	var under types.Type
	switch t.Kind() {
	case reflect.Struct:
		under = im.structOf(t, pkg)
	case reflect.Interface:
		under = im.interfaceOf(t, pkg)
	default:
		under = im.literal(t)
		if _, isNamed := under.(*types.Named); isNamed || under == nil {
			under = types.Typ[types.Invalid]
		}
	}
	n.SetUnderlying(under.Underlying())
	if t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		for i := 0; i < pt.NumMethod(); i++ {
			m := pt.Method(i)
			var recvT types.Type = types.NewPointer(n)
			if _, ok := t.MethodByName(m.Name); ok {
				recvT = n
			}
			recv := types.NewVar(token.NoPos, pkg, "", recvT)
			n.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, im.signature(m.Type, recv, 1)))
		}
	}
	return n
}

// instance maps a compiled instance of a generic type (iter.Seq[string])
// to the instance of the interpreted generic type of the same name, with
// type arguments found by matching the two structures; nil when there is
// no such generic type or the match fails. later reports that the generic
// type's package cannot be built now (it is being built, or another is).
func (im *Importer) instance(t reflect.Type, base string) (inst types.Type, later bool) {
	src, ok := im.sources[t.PkgPath()]
	if !ok {
		// A compiled package with a generic type completed by an overlay.
		for _, op := range im.overlay[t.PkgPath()] {
			src, ok = im.sources[op], true
			break
		}
	}
	if !ok {
		return nil, false
	}
	if im.loading[src.Path] {
		return nil, declaresGeneric(src, base)
	}
	if _, loaded := im.pkgs[src.Path]; !loaded && im.building > 0 {
		return nil, declaresGeneric(src, base)
	}
	pkg, err := im.importLocked(src.Path)
	if err != nil {
		return nil, false
	}
	obj, _ := pkg.Scope().Lookup(base).(*types.TypeName)
	if obj == nil {
		return nil, false
	}
	gen, _ := obj.Type().(*types.Named)
	if gen == nil || gen.TypeParams().Len() == 0 {
		return nil, false
	}
	args := make([]types.Type, gen.TypeParams().Len())
	var match func(g types.Type, r reflect.Type) bool
	match = func(g types.Type, r reflect.Type) bool {
		if tp, ok := g.(*types.TypeParam); ok {
			x := im.typeOf(r)
			if a := args[tp.Index()]; a != nil {
				return types.Identical(a, x)
			}
			args[tp.Index()] = x
			return true
		}
		switch g := g.Underlying().(type) {
		case *types.Signature:
			if r.Kind() != reflect.Func || r.NumIn() != g.Params().Len() || r.NumOut() != g.Results().Len() {
				return false
			}
			for i := 0; i < r.NumIn(); i++ {
				if !match(g.Params().At(i).Type(), r.In(i)) {
					return false
				}
			}
			for i := 0; i < r.NumOut(); i++ {
				if !match(g.Results().At(i).Type(), r.Out(i)) {
					return false
				}
			}
			return true
		case *types.Pointer:
			return r.Kind() == reflect.Pointer && match(g.Elem(), r.Elem())
		case *types.Slice:
			return r.Kind() == reflect.Slice && match(g.Elem(), r.Elem())
		case *types.Array:
			return r.Kind() == reflect.Array && match(g.Elem(), r.Elem())
		case *types.Map:
			return r.Kind() == reflect.Map && match(g.Key(), r.Key()) && match(g.Elem(), r.Elem())
		case *types.Chan:
			return r.Kind() == reflect.Chan && match(g.Elem(), r.Elem())
		case *types.Struct:
			if r.Kind() != reflect.Struct || r.NumField() != g.NumFields() {
				return false
			}
			for i := 0; i < g.NumFields(); i++ {
				if !match(g.Field(i).Type(), r.Field(i).Type) {
					return false
				}
			}
			return true
		}
		return true
	}
	if !match(gen.Underlying(), t) {
		return nil, false
	}
	for _, a := range args {
		if a == nil {
			return nil, false
		}
	}
	inst, err = types.Instantiate(types.NewContext(), gen, args, true)
	if err != nil {
		return nil, false
	}
	return inst, false
}

// declaresGeneric reports whether the source package declares a generic
// type named name (to which a compiled instance maps once it is built).
func declaresGeneric(src Source, name string) bool {
	for _, text := range src.Files {
		f, err := parser.ParseFile(token.NewFileSet(), "", text, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, sp := range g.Specs {
				if ts := sp.(*ast.TypeSpec); ts.Name.Name == name && ts.TypeParams != nil {
					return true
				}
			}
		}
	}
	return false
}

// checkSource type-checks a source package.
func (im *Importer) checkSource(src Source) (*types.Package, error) {
	files, err := im.parse(src)
	if err != nil {
		return nil, err
	}
	var errs []error
	conf := types.Config{Importer: lockedImporter{im}, Error: func(err error) { errs = append(errs, err) }}
	pkg, _ := conf.Check(src.Path, im.fset, files, nil)
	if len(errs) > 0 {
		return nil, fmt.Errorf("type-checking the interpreted package %s: %w", src.Path, errors.Join(errs...))
	}
	return pkg, nil
}

// merge type-checks overlay src and adds its exported objects to pkg.
func (im *Importer) merge(pkg *types.Package, src Source) error {
	op, err := im.checkSource(src)
	if err != nil {
		return err
	}
	im.pkgs[src.Path] = op
	for _, n := range op.Scope().Names() {
		o := op.Scope().Lookup(n)
		if o.Exported() && pkg.Scope().Lookup(n) == nil {
			pkg.Scope().Insert(o)
		}
	}
	return nil
}

func (im *Importer) parse(src Source) ([]*ast.File, error) {
	names := make([]string, 0, len(src.Files))
	for n := range src.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(im.fset, src.Path+"/"+n, src.Files[n], parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// topLevelNames lists the exported top-level names a source declares.
func topLevelNames(src Source) []string {
	var out []string
	for name, text := range src.Files {
		f, err := parser.ParseFile(token.NewFileSet(), name, text, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					out = append(out, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if sp.Name.IsExported() {
							out = append(out, sp.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.IsExported() {
								out = append(out, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// lockedImporter imports with the lock already held (source packages are
// checked while importLocked runs).
type lockedImporter struct{ im *Importer }

func (l lockedImporter) Import(p string) (*types.Package, error) { return l.im.importLocked(p) }

// OverlayOf returns the overlay package an object belongs to and the
// compiled package it completes ("" when obj is not from an overlay).
func (im *Importer) OverlayOf(obj types.Object) (overlay, completes string) {
	if obj == nil || obj.Pkg() == nil {
		return "", ""
	}
	if s, ok := im.sources[obj.Pkg().Path()]; ok && s.Overlays != "" {
		return s.Path, s.Overlays
	}
	return "", ""
}
