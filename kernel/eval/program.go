package eval

import (
	"go/ast"
	"strings"
)

// mainName is what a cell's func main is renamed to.
const mainName = "_conclabMain"

// A whole program in a cell (feature): `package main` with a func main, as
// pasted from Go's documentation, runs as `go run` runs it: its init
// functions, then main, once. yaegi would run a main of package main at
// every later compilation of the session (each later cell would run the
// program again), so the session renames the cell's func main and calls it
// after the cell's other segments. The session keeps the program's types,
// functions and variables for later cells, as it keeps any cell's.
func programMain(segs []segment) []segment {
	last := 0
	found := false
	for i := range segs {
		if segs[i].kind != segDecl || !strings.Contains(segs[i].src, "main") {
			continue
		}
		f, off, ok := parseSegment(segs[i].src, true)
		if !ok {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != "main" || fd.Recv != nil || fd.Type.TypeParams != nil ||
				fd.Type.Params.NumFields() != 0 || fd.Type.Results.NumFields() != 0 {
				continue
			}
			o := off(fd.Name.Pos())
			segs[i].src = segs[i].src[:o] + mainName + segs[i].src[o+len("main"):]
			found = true
		}
	}
	if !found {
		return segs
	}
	for _, s := range segs {
		last = max(last, s.line+strings.Count(s.src, "\n"))
	}
	return append(segs, segment{kind: segStmt, src: mainName + "()", line: last})
}
