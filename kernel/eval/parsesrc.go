package eval

import (
	"go/ast"
	"go/parser"
	"go/token"
)

// parseSegment parses a segment for a source rewrite: declarations (decl)
// as a file, statements as the body of a function. off maps a position
// back to its byte offset in src. ok is false when src does not parse (the
// rewrite then leaves it as is).
func parseSegment(src string, decl bool) (f *ast.File, off func(token.Pos) int, ok bool) {
	prefix, suffix := "package main\nfunc _() {\n", "\n}"
	if decl {
		prefix, suffix = "package main\n", ""
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+suffix, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, false
	}
	return f, func(p token.Pos) int { return fset.Position(p).Offset - len(prefix) }, true
}
