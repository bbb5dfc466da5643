package eval

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// panicFrameRE matches one line of yaegi's report of a panic unwinding a
// frame: "_.go:LINE:COL: panic: main.f(...)".
var panicFrameRE = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): panic: ([^\s(]+)\(\.\.\.\)`)

type panicFrame struct {
	line int    // cell line (the file line less the leading newline)
	fn   string // "main" for top-level code, "main.f", "main.f.func" ...
}

// panicLine returns the cell line of src (whose first line is cell line
// line) where a panic happened, from yaegi's report diag; 0 when it cannot
// be told. The frames are innermost first, and a function declared by
// another cell reports lines of that cell, not of this one: the line is
// that of the innermost frame running code of src (its top-level code, not
// the outermost entry, which is the program's start, or a function src
// declares); failing that, the line of src's one statement that calls the
// function the panic came from. inner is the line of the innermost frame
// when it is in another cell's function (0 otherwise).
func panicLine(diag, src string, line int) (at, inner int) {
	var frames []panicFrame
	for _, l := range strings.Split(diag, "\n") {
		if m := panicFrameRE.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			frames = append(frames, panicFrame{line: n - 1, fn: m[3]})
		}
	}
	if len(frames) == 0 {
		return 0, 0
	}
	own := declaredFuncs(src)
	for i, f := range frames {
		name := strings.TrimPrefix(strings.SplitN(f.fn+".", ".func", 2)[0], "main.")
		name = strings.TrimSuffix(name, ".")
		switch {
		case f.fn == "main" && (i < len(frames)-1 || len(frames) == 1):
			return f.line, innerOf(frames, i)
		case f.fn != "main" && own[name]:
			return f.line, innerOf(frames, i)
		}
	}
	// Only other cells' functions and the program's start: the statement
	// calling the innermost function, when there is one.
	fn := strings.TrimPrefix(strings.SplitN(frames[0].fn+".", ".func", 2)[0], "main.")
	fn = strings.TrimSuffix(fn, ".")
	if l, ok := callLine(src, fn); ok {
		return line + l, frames[0].line
	}
	return 0, frames[0].line
}

func innerOf(frames []panicFrame, i int) int {
	if i == 0 {
		return 0
	}
	return frames[0].line
}

// declaredFuncs returns the names of the functions and methods src
// declares.
func declaredFuncs(src string) map[string]bool {
	out := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+src, parser.SkipObjectResolution)
	if err != nil {
		return out
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			out[fd.Name.Name] = true
		}
	}
	return out
}

// callLine returns the 0-based line, within src (statements), of the one
// top-level statement that calls a function or method named fn.
func callLine(src, fn string) (int, bool) {
	if fn == "" || fn == "main" {
		return 0, false
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package main\nfunc _() {\n"+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return 0, false
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	found := -1
	for _, st := range body.List {
		calls := false
		ast.Inspect(st, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				switch x := ast.Unparen(c.Fun).(type) {
				case *ast.Ident:
					calls = calls || x.Name == fn
				case *ast.SelectorExpr:
					calls = calls || x.Sel.Name == fn
				}
			}
			return true
		})
		if calls {
			if found >= 0 {
				return 0, false // more than one: cannot tell
			}
			found = fset.Position(st.Pos()).Line - 3
		}
	}
	return found, found >= 0
}
