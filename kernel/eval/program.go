package eval

import (
	"go/ast"
	"go/token"
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

// typesFirst splits a declaration segment that declares types and
// functions into two sources run one after the other: its imports, types
// and constants, then its functions, methods and variables (interpreter
// limit: yaegi instantiates a generic function or type with a type declared
// in the same source wrongly, e.g. weak.Make[blob] in a program declaring
// blob: "mismatched types main.blob and *main.blob"). Each source keeps the
// other's declarations as blank lines, so that lines stay the cell's.
func typesFirst(src string) []string {
	f, off, ok := parseSegment(src, true)
	if !ok {
		return []string{src}
	}
	var first, second [][2]int
	for _, d := range f.Decls {
		r := [2]int{off(d.Pos()), off(d.End())}
		if g, ok := d.(*ast.GenDecl); ok && g.Tok != token.VAR {
			first = append(first, r)
		} else {
			second = append(second, r)
		}
	}
	hasType := false
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			hasType = true
		}
	}
	if !hasType || len(second) == 0 {
		return []string{src}
	}
	// blank keeps the ranges of keep and a semicolon right after each (a
	// declaration ended by ';' before another on its line), and turns the
	// rest into spaces, newlines kept.
	blank := func(keep [][2]int) string {
		b := []byte(src)
		out := make([]byte, len(b))
		for i := range b {
			if b[i] == '\n' {
				out[i] = '\n'
			} else {
				out[i] = ' '
			}
		}
		for _, r := range keep {
			copy(out[r[0]:r[1]], b[r[0]:r[1]])
			for i := r[1]; i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == ';'); i++ {
				if b[i] == ';' {
					out[i] = ';'
					break
				}
			}
		}
		return string(out)
	}
	return []string{blank(first), blank(second)}
}
