package eval

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/conclab/conclab/internal/symbols/stdlib"
	"github.com/conclab/conclab/kernel/eval/internal/genstd"
	"github.com/conclab/conclab/kernel/eval/internal/importer"
	"github.com/conclab/conclab/kernel/eval/internal/reach"
)

// The standard library in a session: the compiled packages of the
// toolchain conclab is built with (internal/symbols/stdlib, generated for
// Go 1.26 and 1.27), and its generic part run from source (package
// genstd): cmp, iter, maps, slices ... as packages of their own, and the
// generic members of mixed packages (sync.OnceValue, errors.AsType ...) as
// overlay packages the pipeline's overlay pass refers to.

// stdTables returns the standard library's symbol tables for interp.Use.
// fmt's table goes in under the key "fmt/./fmt": yaegi's Use compiles its
// own generic sources (slices, maps and cmp of Go 1.22) when the tables
// hold "fmt/fmt", and those would clash with genstd's; the key names the
// same import path (see package reach).
func stdTables() map[string]map[string]reflect.Value {
	out := make(map[string]map[string]reflect.Value, len(stdlib.Symbols)+1)
	for k, v := range stdlib.Symbols {
		if k == "fmt/fmt" {
			k = reach.FmtKey
		}
		out[k] = v
	}
	return out
}

// stdPackages are the interpreted packages, dependencies first, made once.
var stdPackages = genstd.Packages()

// interpSource merges the files of an interpreted package into the one
// source yaegi compiles (it compiles a package file by file, in order, so a
// file could not use another's declarations), with its generic functions
// and types renamed (see genericNames).
func interpSource(p genstd.Package) (string, error) {
	names := make([]string, 0, len(p.Files))
	for n := range p.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	imports := map[string]string{} // path -> name ("" for none)
	var decls []string
	for _, n := range names {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, n, p.Files[n], parser.SkipObjectResolution)
		if err != nil {
			return "", fmt.Errorf("interpreted package %s: %w", p.Path, err)
		}
		renameGenerics(f, p)
		for _, is := range f.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			name := ""
			if is.Name != nil {
				name = is.Name.Name
			}
			imports[ip] = name
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				continue
			}
			var b strings.Builder
			if err := printer.Fprint(&b, fset, d); err != nil {
				return "", fmt.Errorf("interpreted package %s: %w", p.Path, err)
			}
			decls = append(decls, b.String())
		}
	}
	var b strings.Builder
	b.WriteString("package " + genstd.InterpName(p) + "\n\n")
	paths := make([]string, 0, len(imports))
	for ip := range imports {
		paths = append(paths, ip)
	}
	// Imports of interpreted packages with longer paths go by the name the
	// interpreter knows them by.
	for i, ip := range paths {
		if n := interpPath(ip); n != ip {
			imports[n] = imports[ip]
			delete(imports, ip)
			paths[i] = n
		}
	}
	sort.Strings(paths)
	for _, ip := range paths {
		b.WriteString("import " + imports[ip] + " " + strconv.Quote(ip) + "\n")
	}
	for _, d := range decls {
		b.WriteString("\n" + d + "\n")
	}
	return b.String(), nil
}

// yaegi keeps one instance of a generic function or type per name and type
// arguments, whatever the package: slices.Collect[int] and a cell's own
// Collect[int] would be one function (the first compiled), and so would
// hkdf.Key[hash.Hash] and pbkdf2.Key[hash.Hash]. The interpreted packages'
// generic functions and types therefore have names of their own in the
// interpreter, Name__pkg (Collect__slices), and the pipeline's stdgeneric
// pass writes cells' uses of them so.

// genericNames are the top-level generic functions and types of each
// interpreted package, by path.
var genericNames = func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, p := range stdPackages {
		m := map[string]bool{}
		for n, src := range p.Files {
			f, err := parser.ParseFile(token.NewFileSet(), n, src, parser.SkipObjectResolution)
			if err != nil {
				continue
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Type.TypeParams != nil {
						m[d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, sp := range d.Specs {
						if ts, ok := sp.(*ast.TypeSpec); ok && ts.TypeParams != nil {
							m[ts.Name.Name] = true
						}
					}
				}
			}
		}
		out[p.Path] = m
	}
	return out
}()

// methodRenames are methods of interpreted generic types that yaegi would
// mistake for others of the same name: it also keys a generic type's
// method instances by the method's name and the type arguments only, so
// unique.Handle[T].Value and weak.Pointer[T].Value would be one. They are
// renamed like generic functions (Value__unique); methods other code calls
// through an interface (sql.Null's Value for driver.Valuer) keep their
// names.
var methodRenames = map[string]map[string]bool{
	"unique": {"Handle.Value": true},
	"weak":   {"Pointer.Value": true},
}

// interpMethod is the name the interpreter knows method name of type typ
// of the interpreted package at path by.
func interpMethod(path, typ, name string) string {
	if methodRenames[path][typ+"."+name] {
		return name + "__" + strings.TrimPrefix(path, "conclab_")
	}
	return name
}

// interpMember is the name the interpreter knows member name of the
// interpreted package at path by.
func interpMember(path, name string) string {
	if genericNames[path][name] {
		for _, p := range stdPackages {
			if p.Path == path {
				return name + "__" + strings.TrimPrefix(genstd.InterpName(p), "conclab_")
			}
		}
	}
	return name
}

// renameGenerics renames, in a file of interpreted package p, its generic
// declarations and the uses of them and of other interpreted packages'
// generics (through their imports).
func renameGenerics(f *ast.File, p genstd.Package) {
	imported := map[string]string{} // file name of an import -> path
	for _, is := range f.Imports {
		ip, _ := strconv.Unquote(is.Path.Value)
		n := guessPkgName(ip)
		if is.Name != nil {
			n = is.Name.Name
		}
		imported[n] = ip
	}
	skip := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			skip[x.Sel] = true
			if id, ok := x.X.(*ast.Ident); ok {
				if ip, ok := imported[id.Name]; ok {
					x.Sel.Name = interpMember(ip, x.Sel.Name)
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok {
				skip[id] = true
			}
		case *ast.Field:
			for _, id := range x.Names {
				skip[id] = true
			}
		case *ast.FuncDecl:
			if x.Recv != nil && len(x.Recv.List) == 1 {
				skip[x.Name] = true
				x.Name.Name = interpMethod(p.Path, recvTypeName(x.Recv.List[0].Type), x.Name.Name)
			}
		case *ast.Ident:
			if !skip[x] {
				x.Name = interpMember(p.Path, x.Name)
			}
		}
		return true
	})
}

// loadStdSources compiles the interpreted packages into the session's
// interpreter.
func (s *Session) loadStdSources() error {
	for _, p := range stdPackages {
		src, err := interpSource(p)
		if err != nil {
			return err
		}
		if _, err := s.in.Eval(src); err != nil {
			return fmt.Errorf("interpreted package %s: %w", p.Path, err)
		}
	}
	return nil
}

// newImporter makes the type checker's importer for a session's tables.
func newImporter(tables ...map[string]map[string]reflect.Value) *importer.Importer {
	var srcs []importer.Source
	for _, p := range stdPackages {
		srcs = append(srcs, importer.Source{Path: p.Path, Files: p.Files, Overlays: p.Overlays})
	}
	return importer.New(tables, srcs)
}

// stdSourcePath returns the path of the interpreted package cells know by
// name ("slices"), if there is one.
func stdSourcePath(name string) (string, bool) {
	for _, p := range stdPackages {
		if p.Overlays == "" && p.Path == name {
			return p.Path, true
		}
	}
	return "", false
}

// linkedName is the name a linked package is known by without an import,
// when it is one (see linked.used).
func (l *linked) nameOf(p string) (string, bool) {
	b := path.Base(p)
	for n, q := range l.used {
		if q == p && (n == b || n == l.importName(p)) {
			return n, true
		}
	}
	return "", false
}

// interpPath is the path the interpreter knows an interpreted package by
// (see genstd.InterpName); p itself for any other package.
func interpPath(p string) string {
	for _, sp := range stdPackages {
		if sp.Path == p {
			return genstd.InterpName(sp)
		}
	}
	return p
}
