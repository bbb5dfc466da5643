package eval

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
)

// goGuard is inserted at the start of the body of every `go func(...) {...}(...)`
// in a cell: an unrecovered panic in a goroutine would otherwise end the
// whole process (and the kernel). It reports the panic on the cell's stderr.
const goGuard = `defer func() { if r := recover(); r != nil { _conclabGoPanic(r) } }(); `

// guardGoroutines returns src with goGuard inserted into goroutine function
// literals. Line numbers are unchanged. Sources that do not parse are
// returned as is (the interpreter reports the error).
func guardGoroutines(src string, decl bool) string {
	prefix := "package main\nfunc _() {\n"
	suffix := "\n}"
	if decl {
		prefix, suffix = "package main\n", ""
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+suffix, parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	var offs []int
	ast.Inspect(f, func(n ast.Node) bool {
		g, ok := n.(*ast.GoStmt)
		if !ok {
			return true
		}
		if lit, ok := g.Call.Fun.(*ast.FuncLit); ok && lit.Body != nil {
			off := fset.Position(lit.Body.Lbrace).Offset + 1 - len(prefix)
			if off > 0 && off <= len(src) {
				offs = append(offs, off)
			}
		}
		return true
	})
	if len(offs) == 0 {
		return src
	}
	sort.Sort(sort.Reverse(sort.IntSlice(offs)))
	for _, o := range offs {
		src = src[:o] + goGuard + src[o:]
	}
	return src
}
