package eval

import (
	"go/ast"
	"go/token"
	"strings"
)

// yaegi makes a function literal into a closure in the frame that
// evaluates it, and every call of that closure writes the frame's slot
// for the literal back, under the frame's lock. Two things follow:
//
//   - A loop that makes closures (wg.Go(func() {...}), go func() {...}(),
//     f := func() {...}) while earlier iterations' closures run in other
//     goroutines races with them on that slot: a goroutine ran another
//     iteration's closure or read a zero variable, wg.Go called a nil
//     func (a SIGSEGV in sync.WaitGroup.Go), and a `go func() { defer
//     wg.Done() ... }()` ran twice ("sync: negative WaitGroup counter").
//   - A function's deferred calls run holding its frame's lock, so a
//     closure the function made and deferred (stop := func() {...};
//     defer stop()) waits for that lock for ever: the cell hangs.
//
// wrapClosures (the closures pass) makes each such literal in a frame of
// its own, a call made for it and left at once, so the write-back goes to
// a frame nobody else reads:
//
//	LIT              ->  func() T { return LIT }()
//	go LIT(args)     ->  _cgfN := func() T { return LIT }(); go _cgfN(args)
//	defer LIT(args)  ->  _cdfN := func() T { return LIT }(); defer _cdfN(args)   (in a loop)
//
// where T is the literal's own type as written and N the statement's
// offset. A go or defer statement takes its function from a variable of
// its own: yaegi reads the function of a go or deferred call from where it
// was put when the call runs, and a call's result is put in the same place
// at every iteration. Literals inside a function
// or a loop are changed; a literal called on the spot (func() {...}()) and
// a deferred one outside loops are left alone, as are literals at the top
// level of a cell outside loops (evaluated once, in a frame no deferred
// call holds). A deferred literal is hoisted in a loop because yaegi's
// defer of a literal reads the loop's variables when it runs, not where
// the defer is (every deferred call of a `for i` saw the last i). Line
// numbers are unchanged.
func wrapClosures(src string, decl bool) string {
	if !strings.Contains(src, "func") {
		return src
	}
	f, off, ok := parseSegment(src, decl)
	if !ok {
		return src
	}
	text := func(from, to int) string { return src[from:to] }
	var synthetic ast.Node // the func _() parseSegment wraps statements in
	if !decl && len(f.Decls) > 0 {
		synthetic = f.Decls[0]
	}
	var edits []edit
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if lit, ok := n.(*ast.FuncLit); ok && off(lit.Pos()) >= 0 && off(lit.End()) <= len(src) {
			edits = append(edits, closureEdits(lit, stack, synthetic, off, text)...)
		}
		stack = append(stack, n)
		return true
	})
	if len(edits) == 0 {
		return src
	}
	out, _ := applyEdits(src, edits)
	return out
}

// closureEdits returns the edits for lit, whose ancestors are stack
// (innermost last).
func closureEdits(lit *ast.FuncLit, stack []ast.Node, synthetic ast.Node, off func(token.Pos) int, text func(int, int) string) []edit {
	inLoop, inFunc := false, false
scope:
	for i := len(stack) - 1; i >= 0; i-- {
		switch a := stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			inLoop = true
		case *ast.FuncLit:
			inFunc = true
			break scope
		case *ast.FuncDecl:
			inFunc = a != synthetic
			break scope
		}
	}
	if !inLoop && !inFunc {
		return nil
	}
	typ := text(off(lit.Type.Pos()), off(lit.Type.End()))
	if strings.Contains(typ, "//") || strings.Contains(typ, "/*") {
		return nil // the type goes on one line: comments in it would take the rest
	}
	typ = strings.Join(strings.Fields(typ), " ")
	// The operand is lit with its parentheses; outer is what uses it.
	var operand ast.Node = lit
	p := len(stack) - 1
	for p >= 0 {
		par, ok := stack[p].(*ast.ParenExpr)
		if !ok {
			break
		}
		operand = par
		p--
	}
	open, closing := "func() "+typ+" { return ", " }()"
	if p >= 0 {
		if call, ok := stack[p].(*ast.CallExpr); ok && call.Fun == operand {
			var stmt ast.Node
			if p > 0 {
				stmt = stack[p-1]
			}
			switch s := stmt.(type) {
			case *ast.GoStmt, *ast.DeferStmt:
				kw, prefix := "go", "_cgf"
				if _, ok := s.(*ast.DeferStmt); ok {
					if !inLoop {
						return nil
					}
					kw, prefix = "defer", "_cdf"
				}
				if p < 2 {
					return nil
				}
				switch stack[p-2].(type) {
				case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
				default:
					return nil // a define cannot go before it
				}
				name := prefix + itoa(off(s.Pos()))
				return []edit{
					{off(s.Pos()), off(operand.Pos()), name + " := " + open},
					{off(operand.End()), off(operand.End()), closing + "; " + kw + " " + name},
				}
			default:
				return nil // called on the spot, in this goroutine
			}
		}
	}
	return []edit{
		{off(operand.Pos()), off(operand.Pos()), open},
		{off(operand.End()), off(operand.End()), closing},
	}
}
