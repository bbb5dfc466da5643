package eval

import (
	"go/ast"
	"go/parser"
	"strings"

	"github.com/conclab/conclab/internal/cellsrc"
)

type segKind int

const (
	segStmt  segKind = iota // statements
	segDecl                 // import, func, method, type, var, const declarations
	segShell                // a `$ cmd` line
	segMagic                // a `%magic args` line
)

// segment is a run of a cell evaluated in one step. line is the cell line
// (1-based) the segment starts on.
type segment struct {
	kind segKind
	src  string
	line int
	expr bool // the segment is the cell's final expression statement
}

// splitCell cuts a cell into magic lines and Go segments that the
// interpreter can evaluate one at a time (yaegi does not accept declarations
// and statements in one source). The cell grammar is internal/cellsrc's,
// which the cell formatter shares.
func splitCell(code string) []segment {
	var segs []segment
	for _, p := range cellsrc.Split(code) {
		switch p.Kind {
		case cellsrc.Shell:
			segs = append(segs, segment{kind: segShell, src: p.Src, line: p.Line})
		case cellsrc.Magic:
			segs = append(segs, segment{kind: segMagic, src: p.Src, line: p.Line})
		default:
			if strings.TrimSpace(p.Src) != "" {
				segs = append(segs, splitGo(p.Src, p.Line)...)
			}
		}
	}
	// Mark the final expression statement, if the cell ends with Go code.
	if n := len(segs); n > 0 && segs[n-1].kind == segStmt {
		last := segs[n-1]
		units, _ := cellsrc.Units(last.src)
		if len(units) > 0 {
			u := units[len(units)-1]
			text := last.src[u.Start:u.End]
			if isExpr(text) {
				segs[n-1].src = last.src[:u.Start]
				tail := segment{kind: segStmt, src: text, line: last.line + strings.Count(last.src[:u.Start], "\n"), expr: true}
				if strings.TrimSpace(segs[n-1].src) == "" {
					segs[n-1] = tail
				} else {
					segs = append(segs, tail)
				}
			}
		}
	}
	return segs
}

// splitGo groups the units of a Go run into alternating declaration and
// statement segments.
func splitGo(src string, line int) []segment {
	units, _ := cellsrc.Units(src)
	var segs []segment
	for i, u := range units {
		k := segStmt
		if u.Declaration() {
			k = segDecl
		}
		// Segments span from the previous unit's end so that comments and
		// blank lines keep their place.
		from := u.Start
		if i > 0 {
			from = units[i-1].End
		}
		if len(segs) > 0 && segs[len(segs)-1].kind == k {
			segs[len(segs)-1].src += src[from:u.End]
			continue
		}
		segs = append(segs, segment{kind: k, src: src[from:u.End], line: line + strings.Count(src[:from], "\n")})
	}
	// Leading newlines of a segment move its line forward.
	for i := range segs {
		trimmed := strings.TrimLeft(segs[i].src, " \t\r\n")
		segs[i].line += strings.Count(segs[i].src[:len(segs[i].src)-len(trimmed)], "\n")
		segs[i].src = trimmed
	}
	return segs
}

// isExpr reports whether src is a single expression.
func isExpr(src string) bool {
	_, err := parser.ParseExpr(src)
	return err == nil
}

// callFun returns the source of the function part of a call expression when
// it is a plain identifier or selector chain (safe to evaluate on its own).
func callFun(src string) (string, bool) {
	e, err := parser.ParseExpr(src)
	if err != nil {
		return "", false
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return "", false
	}
	var plain func(ast.Expr) bool
	plain = func(x ast.Expr) bool {
		switch x := x.(type) {
		case *ast.Ident:
			return true
		case *ast.SelectorExpr:
			return plain(x.X)
		case *ast.ParenExpr:
			return plain(x.X)
		}
		return false
	}
	if !plain(call.Fun) {
		return "", true
	}
	return src[call.Fun.Pos()-1 : call.Fun.End()-1], true
}
