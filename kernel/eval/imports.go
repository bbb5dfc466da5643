package eval

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Re-running a cell must be safe, but yaegi rejects a second import of a
// linked (binary) package under the same name: "fmt/_.go redeclared in this
// block". Before a declaration segment runs, dedupeImports drops each import
// whose name is already bound to the same package (a no-op, as re-running
// the cell means), and an import of a name bound to another package first
// unbinds the old one so that the new import replaces it. The binding is
// read from the interpreter itself (not from the session's record), so an
// import bound by a cell that failed later is still recognised.

// importFixer tells what name is bound to and unbinds it.
type importFixer interface {
	// Bound returns the import path name is bound to in the main scope.
	Bound(name string) (string, bool)
	// Unbind removes the binding of name.
	Unbind(name string)
}

// dedupeImports returns the declaration segment src without the imports
// already in place and unbinds the names a changed import replaces. The
// declarations are written again without the removed imports, keeping the
// line count; importName names an import without an alias (see
// linked.importName). A source that does
// not parse is returned as is.
func dedupeImports(src string, fx importFixer, importName func(path string) string) string {
	if !strings.Contains(src, "import") {
		return src
	}
	const prefix = "package main\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset - len(prefix) }
	text := func(n ast.Node) string { return src[off(n.Pos()):off(n.End())] }
	var cuts []cut
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		var drop []*ast.ImportSpec
		for _, sp := range g.Specs {
			is := sp.(*ast.ImportSpec)
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				continue
			}
			name := importName(p)
			if is.Name != nil {
				name = is.Name.Name
			}
			if name == "_" || name == "." {
				continue
			}
			cur, ok := fx.Bound(name)
			switch {
			case !ok:
			case cur == p || cur == canonicalImport(p):
				drop = append(drop, is)
			default:
				fx.Unbind(name)
			}
		}
		if len(drop) == 0 {
			continue
		}
		// The declaration is written again with the imports kept.
		var kept []string
		for _, sp := range g.Specs {
			if !slices.Contains(drop, sp.(*ast.ImportSpec)) {
				kept = append(kept, text(sp))
			}
		}
		repl := ""
		if len(kept) > 0 {
			repl = "import (" + strings.Join(kept, "; ") + ")"
		}
		cuts = append(cuts, cut{off(g.Pos()), off(g.End()), repl})
	}
	for i := len(cuts) - 1; i >= 0; i-- {
		c := cuts[i]
		if c.from < 0 || c.to > len(src) || c.from > c.to {
			return src
		}
		old := src[c.from:c.to]
		repl := c.text + strings.Repeat("\n", strings.Count(old, "\n")-strings.Count(c.text, "\n"))
		src = src[:c.from] + repl + src[c.to:]
	}
	return src
}

type cut struct {
	from, to int
	text     string
}

// canonicalImport is the path yaegi records for an import of p: a one-
// element path repeated ("fmt" for "fmt") stays, as yaegi keeps it.
func canonicalImport(p string) string {
	if base := path.Base(p); path.Dir(p) == base {
		return base
	}
	return p
}
