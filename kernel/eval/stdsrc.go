package eval

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/conclab/conclab/internal/symbols/stdlib"
	"github.com/conclab/conclab/kernel/eval/internal/genstd"
	"github.com/conclab/conclab/kernel/eval/internal/importer"
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
// same import path (see yaegiinternals.go).
func stdTables() map[string]map[string]reflect.Value {
	out := make(map[string]map[string]reflect.Value, len(stdlib.Symbols)+1)
	for k, v := range stdlib.Symbols {
		if k == "fmt/fmt" {
			k = fmtKey
		}
		out[k] = v
	}
	return out
}

// fmtKey is fmt's key in the tables the session gives yaegi.
const fmtKey = "fmt/./fmt"

// stdPackages are the interpreted packages, dependencies first, made once.
var stdPackages = genstd.Packages()

// interpSource merges the files of an interpreted package into the one
// source yaegi compiles (it compiles a package file by file, in order, so a
// file could not use another's declarations).
func interpSource(p genstd.Package) (string, error) {
	names := make([]string, 0, len(p.Files))
	for n := range p.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	imports := map[string]string{} // path -> name ("" for none)
	var decls []string
	for _, n := range names {
		src := p.Files[n]
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, n, src, parser.SkipObjectResolution)
		if err != nil {
			return "", fmt.Errorf("interpreted package %s: %w", p.Path, err)
		}
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
			decls = append(decls, src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset])
		}
	}
	var b strings.Builder
	b.WriteString("package " + p.Name + "\n\n")
	paths := make([]string, 0, len(imports))
	for ip := range imports {
		paths = append(paths, ip)
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
