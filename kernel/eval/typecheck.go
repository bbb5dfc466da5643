package eval

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"github.com/conclab/conclab/kernel/eval/internal/importer"
)

// The session type-checks every Go segment of a cell with go/types before
// the interpreter sees it, in the context of everything earlier cells
// declared. The typed passes of the pipeline (pipeline.go) need the
// types: the type arguments of a generic call (yaegi cannot infer them),
// the element types of a range over a function, the type of a range over
// an integer, what min, max and clear are applied to. The checker is an
// oracle, not a gate: a segment it rejects still runs (the interpreter has
// the last word), and the passes use what the checker could work out.
//
// The context is kept as source: the declarations of earlier cells (the
// latest of each name, methods with their types), and the variables their
// statements defined, each as `var name T`. Each segment is checked in a
// file made of that source and the segment (statements in a function
// body), so a method declared in a later cell than its type, and a type
// declared again, check as they run.

// typeState is the session's context for the type checker.
type typeState struct {
	imp *importer.Importer
	// pkgName resolves a name cells can use for a package without
	// importing it (linked packages by name, the interpreted standard
	// library).
	pkgName func(name string) (path string, ok bool)
	imports map[string]string // name -> path, imported by cells
	decls   []sessionDecl
	vars    map[string]sessionVar
	nvar    int
}

type sessionDecl struct {
	names []string // the names it declares ("T.M" for a method of T)
	recv  string   // the receiver's type name for a method
	src   string
}

type sessionVar struct {
	typ   types.Type
	order int
}

func newTypeState(imp *importer.Importer, pkgName func(string) (string, bool)) *typeState {
	return &typeState{imp: imp, pkgName: pkgName, imports: map[string]string{}, vars: map[string]sessionVar{}}
}

// checked is a segment after type checking.
type checked struct {
	fset  *token.FileSet
	file  *ast.File
	info  *types.Info
	pkg   *types.Package
	base  int  // offset of the segment's first byte in the file
	decl  bool // checked as declarations (else as a function body)
	src   string
	errs  []types.Error // hard errors inside the segment
	body  *ast.BlockStmt
	names map[string]string // names the file binds to packages -> path
}

// off is the segment offset of position p.
func (c *checked) off(p token.Pos) int { return c.fset.Position(p).Offset - c.base }

// inSeg reports whether position p is inside the segment.
func (c *checked) inSeg(p token.Pos) bool {
	o := c.off(p)
	return o >= 0 && o <= len(c.src)
}

// check type-checks segment src (declarations when decl).
func (ts *typeState) check(src string, decl bool) *checked {
	segNames := map[string]bool{}
	segImports := map[string]bool{}
	if decl {
		if f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+src, parser.SkipObjectResolution|parser.ImportsOnly); err == nil {
			for _, is := range f.Imports {
				p, _ := strconv.Unquote(is.Path.Value)
				n := ts.importName(p)
				if is.Name != nil {
					n = is.Name.Name
				}
				segImports[n] = true
			}
		}
		for _, n := range declNames(src) {
			segNames[n] = true
		}
	}
	var b strings.Builder
	b.WriteString("package main\n")
	// The session's declarations, without those the segment replaces.
	var body strings.Builder
	for _, d := range ts.decls {
		if replaced(d, segNames) {
			continue
		}
		body.WriteString(d.src)
		body.WriteString("\n")
	}
	vars := make([]string, 0, len(ts.vars))
	for n := range ts.vars {
		if !segNames[n] {
			vars = append(vars, n)
		}
	}
	sort.Slice(vars, func(i, j int) bool { return ts.vars[vars[i]].order < ts.vars[vars[j]].order })
	aliases := map[string]string{} // path -> alias for var types
	qual := func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		a, ok := aliases[p.Path()]
		if !ok {
			a = "_clq" + strconv.Itoa(len(aliases))
			aliases[p.Path()] = a
		}
		return a
	}
	for _, n := range vars {
		v := ts.vars[n]
		if !printable(v.typ, false) {
			continue
		}
		body.WriteString("var " + n + " " + types.TypeString(v.typ, qual) + "\n")
	}
	// Imports: the session's, those the text names without importing,
	// and the aliases of the variables' types.
	names := map[string]string{}
	declared := topNames(body.String())
	for n := range segNames {
		declared[n] = true
	}
	for n, p := range ts.imports {
		if !segImports[n] {
			names[n] = p
		}
	}
	for _, id := range identifiers(body.String() + "\n" + src) {
		if _, ok := names[id]; ok || declared[id] || segImports[id] {
			continue
		}
		if p, ok := ts.pkgName(id); ok {
			names[id] = p
		}
	}
	var keys []string
	for n := range names {
		keys = append(keys, n)
	}
	sort.Strings(keys)
	for _, n := range keys {
		b.WriteString("import " + n + " " + strconv.Quote(names[n]) + "\n")
	}
	for p, a := range aliases {
		b.WriteString("import " + a + " " + strconv.Quote(p) + "\n")
		names[a] = p
	}
	b.WriteString(body.String())
	if decl {
		b.WriteString("\n")
	} else {
		b.WriteString("func _() {\n")
	}
	base := b.Len()
	b.WriteString(src)
	if !decl {
		b.WriteString("\n}\n")
	}
	c := &checked{fset: ts.imp.FileSet(), decl: decl, src: src, base: base, names: names}
	f, err := parser.ParseFile(c.fset, "cell", b.String(), parser.ParseComments)
	if f == nil {
		return nil
	}
	c.file = f
	if err != nil {
		// A segment that does not parse is the interpreter's to report.
		return nil
	}
	c.info = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Instances:  map[*ast.Ident]types.Instance{},
		Scopes:     map[ast.Node]*types.Scope{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{
		Importer: ts.imp,
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok || te.Soft || !c.inSeg(te.Pos) || strings.HasSuffix(te.Msg, "is not used") {
				return
			}
			c.errs = append(c.errs, te)
		},
	}
	c.pkg, _ = conf.Check("main", c.fset, []*ast.File{f}, c.info)
	if !decl {
		last := f.Decls[len(f.Decls)-1].(*ast.FuncDecl)
		c.body = last.Body
	}
	return c
}

// fileOff returns the file offset of segment offset o (for positions).
func (c *checked) pos(o int) token.Pos {
	return c.fset.File(c.file.Pos()).Pos(o + c.base)
}

// replaced reports whether a session declaration is replaced by a segment
// declaring names (a type declared again takes its methods with it).
func replaced(d sessionDecl, names map[string]bool) bool {
	for _, n := range d.names {
		if names[n] {
			return true
		}
	}
	return d.recv != "" && names[d.recv]
}

// record adds a segment that ran to the context: its declarations, or the
// variables its statements defined.
func (ts *typeState) record(c *checked, src string, decl bool) {
	if decl {
		ts.recordDecls(src)
		return
	}
	if c == nil || c.info == nil || c.body == nil {
		return
	}
	sc := c.info.Scopes[c.file.Decls[len(c.file.Decls)-1].(*ast.FuncDecl).Type]
	if sc == nil {
		return
	}
	for _, n := range sc.Names() {
		v, ok := sc.Lookup(n).(*types.Var)
		if !ok || n == "_" || !c.inSeg(v.Pos()) {
			continue
		}
		ts.nvar++
		ts.vars[n] = sessionVar{typ: v.Type(), order: ts.nvar}
	}
}

// recordDecls keeps the declarations of a declaration segment, replacing
// earlier ones of the same names.
func (ts *typeState) recordDecls(src string) {
	fset := token.NewFileSet()
	const prefix = "package main\n"
	f, err := parser.ParseFile(fset, "", prefix+src, parser.SkipObjectResolution)
	if err != nil {
		return
	}
	text := func(n ast.Node) string {
		return src[fset.Position(n.Pos()).Offset-len(prefix) : fset.Position(n.End()).Offset-len(prefix)]
	}
	for _, d := range f.Decls {
		var sd sessionDecl
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) > 0 {
				sd.recv = recvTypeName(d.Recv.List[0].Type)
				sd.names = []string{sd.recv + "." + d.Name.Name}
			} else {
				sd.names = []string{d.Name.Name}
			}
			sd.src = text(d)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				for _, sp := range d.Specs {
					is := sp.(*ast.ImportSpec)
					p, _ := strconv.Unquote(is.Path.Value)
					n := ts.importName(p)
					if is.Name != nil {
						n = is.Name.Name
					}
					if n != "_" && n != "." {
						ts.imports[n] = p
					}
				}
				continue
			}
			sd.src = text(d)
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					sd.names = append(sd.names, sp.Name.Name)
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						sd.names = append(sd.names, n.Name)
					}
				}
			}
		}
		names := map[string]bool{}
		for _, n := range sd.names {
			names[n] = true
			delete(ts.vars, n)
		}
		kept := ts.decls[:0]
		for _, old := range ts.decls {
			if !replaced(old, names) {
				kept = append(kept, old)
			}
		}
		ts.decls = append(kept, sd)
	}
}

// importName is the name an import of p binds.
func (ts *typeState) importName(p string) string {
	if pkg, err := ts.imp.Import(p); err == nil {
		return pkg.Name()
	}
	return guessPkgName(p)
}

func guessPkgName(p string) string {
	els := strings.Split(p, "/")
	n := els[len(els)-1]
	if len(els) > 1 && len(n) > 1 && n[0] == 'v' && strings.Trim(n[1:], "0123456789") == "" {
		n = els[len(els)-2]
	}
	return n
}

func recvTypeName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// declNames lists the names a declaration segment declares (methods as
// "T.M").
func declNames(src string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) > 0 {
				out = append(out, recvTypeName(d.Recv.List[0].Type)+"."+d.Name.Name)
			} else {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					out = append(out, sp.Name.Name)
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}

// topNames are the names declared at the top level of declarations src.
func topNames(src string) map[string]bool {
	out := map[string]bool{}
	for _, n := range declNames(src) {
		if !strings.Contains(n, ".") {
			out[n] = true
		}
	}
	return out
}

// identifiers lists the distinct identifiers of Go source.
func identifiers(src string) []string {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, 0)
	seen := map[string]bool{}
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.IDENT && !seen[lit] {
			seen[lit] = true
			out = append(out, lit)
		}
	}
}

// printable reports whether t can be written as source outside its
// package: no unexported named type of another package, no type declared
// inside a function and no type parameter unless inSegment (written in the
// segment, where those in scope are).
func printable(t types.Type, inSegment bool) bool {
	typeParams := inSegment
	ok := true
	seen := map[types.Type]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		if !ok || seen[t] {
			return
		}
		seen[t] = true
		switch x := t.(type) {
		case *types.Named:
			o := x.Obj()
			if o.Pkg() != nil && o.Pkg().Path() != "main" && !o.Exported() {
				ok = false
				return
			}
			if o.Pkg() != nil && o.Parent() != nil && o.Parent() != o.Pkg().Scope() && !typeParams {
				ok = false // declared in a function
				return
			}
			if o.Pkg() != nil && !importablePath(o.Pkg().Path()) {
				ok = false
				return
			}
			for i := 0; i < x.TypeArgs().Len(); i++ {
				walk(x.TypeArgs().At(i))
			}
		case *types.Alias:
			walk(types.Unalias(x))
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
		case *types.Signature:
			for i := 0; i < x.Params().Len(); i++ {
				walk(x.Params().At(i).Type())
			}
			for i := 0; i < x.Results().Len(); i++ {
				walk(x.Results().At(i).Type())
			}
		case *types.Struct:
			for i := 0; i < x.NumFields(); i++ {
				walk(x.Field(i).Type())
			}
		case *types.Interface:
			for i := 0; i < x.NumExplicitMethods(); i++ {
				walk(x.ExplicitMethod(i).Type())
			}
		case *types.TypeParam:
			ok = ok && typeParams
		case *types.Basic:
			if x.Info()&types.IsUntyped != 0 {
				ok = false
			}
		}
	}
	walk(t)
	return ok
}

func importablePath(p string) bool {
	for _, el := range strings.Split(p, "/") {
		if el == "internal" || el == "vendor" {
			return false
		}
	}
	return true
}
