package eval

import (
	"go/ast"
	"go/parser"
	"go/token"

	"github.com/traefik/yaegi/interp"

	"github.com/conclab/conclab/kernel/eval/internal/reach"
)

// yaegi keeps the first declaration of a type when a later cell declares a
// type of the same name again. Before such a redeclaration the session
// removes the old name from the interpreter's main scope (values of the old
// type keep working, as in Go a new declaration makes a new type). This
// reaches into yaegi's unexported state (package reach) and does nothing if
// its layout is not the expected one.

// typeNames returns the names of the types a declaration segment declares.
func typeNames(src string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var names []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, sp := range g.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok && ts.Name.Name != "_" {
					names = append(names, ts.Name.Name)
				}
			}
		}
	}
	return names
}

// forgetType removes name from the interpreter's main scope; it reports
// whether it did.
func forgetType(in *interp.Interpreter, name string) bool { return reach.Of(in).ForgetType(name) }
