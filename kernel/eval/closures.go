package eval

import (
	"go/ast"
	"go/parser"
	"go/printer"
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
// wrapClosures makes each such literal in a frame of its own, a call made
// for it and left at once, so the write-back goes to a frame nobody else
// reads (the closures pass, closureValues, and the golit pass, closureGo):
//
//	LIT                  ->  func() T { return LIT }()
//	go LIT(a, 1)         ->  _cgaN_0 := a; _cgfN := func() func() { return func() { LIT(_cgaN_0, 1) } }(); go _cgfN()
//
// where T is the literal's type and N the statement's offset. Literals
// inside a function or a loop are changed; a literal called on the spot
// (func() {...}()) is left alone, as are literals at the top level of a
// cell outside loops (evaluated once, in a frame no deferred call holds).
//
// yaegi also reads a deferred call's function, receiver and arguments when
// the call runs, not at the defer statement, and a loop puts each
// iteration's in the same place: `defer func() { use(i) }()` used the last
// i, `defer f(i)` passed the last i. In a loop, a deferred call is made
// into a closure of fresh variables (the deferloop pass, closureDefer):
//
//	defer f(x, nil)      ->  _cdcN, _cdaN_0 := f, x; _cdfN := func() func() { return func() { _cdcN(_cdaN_0, nil) } }(); defer _cdfN()
//	defer pkg.F(x)       ->  _cdaN_0 := x; _cdfN := ...{ pkg.F(_cdaN_0) }...; defer _cdfN()
//	defer LIT(x)         ->  _cdaN_0 := x; _cdfN := ...{ LIT(_cdaN_0) }...; defer _cdfN()
//
// except a literal that calls recover itself (recover works only when the
// deferred function calls it), deferred as written, and a method call
// (x.M()): without types the receiver cannot be copied safely (a struct
// variable with a pointer method, an interface), so `defer c.Close()` in a
// range loop still closes the last c (docs/kernel.md, Known limits). Arguments that are
// constants or nil are passed as written (see constant; isPkg and isConst
// tell package names and the session's constants). A statement whose parts span lines
// keeps its line count; one with a comment inside is left alone.
func wrapClosures(src string, decl bool, what closureRewrite, isPkg, isConst func(string) bool) string {
	if !strings.Contains(src, "func") && !strings.Contains(src, "defer") {
		return src
	}
	f, off, ok := parseSegment(src, decl)
	if !ok {
		return src
	}
	c := closureCtx{src: src, off: off, isPkg: isPkg, isConst: isConst, consts: map[string]bool{}}
	ast.Inspect(f, func(n ast.Node) bool {
		if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
			for _, sp := range d.Specs {
				for _, id := range sp.(*ast.ValueSpec).Names {
					c.consts[id.Name] = true
				}
			}
		}
		return true
	})
	if !decl && len(f.Decls) > 0 {
		c.synthetic = f.Decls[0]
	}
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if off(n.Pos()) >= 0 && off(n.End()) <= len(src) {
			switch n := n.(type) {
			case *ast.FuncLit:
				if what == closureValues {
					c.literal(n, stack)
				}
			case *ast.GoStmt:
				if what == closureGo {
					c.goStmt(n, stack)
				}
			case *ast.DeferStmt:
				if what == closureDefer {
					c.deferStmt(n, stack)
				}
			}
		}
		stack = append(stack, n)
		return true
	})
	if len(c.edits) == 0 {
		return src
	}
	out, _ := applyEdits(src, c.edits)
	return out
}

// closureRewrite is one of wrapClosures' three rewrites, each a pass of
// its own: when a piece's rewritten form does not compile (an argument
// copied to a variable takes a type its parameter does not have), the
// piece runs without the later passes first, so a deferred call the
// interpreter rejects costs the defer rewrite, not the literals'.
type closureRewrite int

const (
	closureValues closureRewrite = iota // literals used as values
	closureGo                           // go statements of literals
	closureDefer                        // deferred calls in loops; parentheses off deferred literals
)

type closureCtx struct {
	src            string
	off            func(token.Pos) int
	synthetic      ast.Node // the func _() parseSegment wraps statements in
	isPkg, isConst func(string) bool
	consts         map[string]bool // names the piece declares constants
	edits          []edit
}

func (c *closureCtx) text(n ast.Node) string { return c.src[c.off(n.Pos()):c.off(n.End())] }

// scope reports whether the innermost ancestors in stack, up to the
// enclosing function, hold a loop, and whether there is such a function
// (the statements of a cell are not in one).
func (c *closureCtx) scope(stack []ast.Node) (inLoop, inFunc bool) {
	for i := len(stack) - 1; i >= 0; i-- {
		switch a := stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			inLoop = true
		case *ast.FuncLit:
			return inLoop, true
		case *ast.FuncDecl:
			return inLoop, a != c.synthetic
		}
	}
	return inLoop, false
}

// literal wraps lit when it is used as a value inside a function or a loop.
func (c *closureCtx) literal(lit *ast.FuncLit, stack []ast.Node) {
	p := len(stack) - 1
	var operand ast.Node = lit
	for p >= 0 {
		par, ok := stack[p].(*ast.ParenExpr)
		if !ok {
			break
		}
		operand = par
		p--
	}
	if p >= 0 {
		if call, ok := stack[p].(*ast.CallExpr); ok && call.Fun == operand {
			return // called on the spot, or by a go or defer statement (below)
		}
	}
	if inLoop, inFunc := c.scope(stack); !inLoop && !inFunc {
		return
	}
	typ, ok := oneLineType(lit.Type)
	if !ok {
		return
	}
	c.edits = append(c.edits,
		edit{c.off(lit.Pos()), c.off(lit.Pos()), "func() " + typ + " { return "},
		edit{c.off(lit.End()), c.off(lit.End()), " }()"})
}

// goStmt runs a literal a go statement starts inside a function or a loop
// from a closure made in a frame of its own.
func (c *closureCtx) goStmt(g *ast.GoStmt, stack []ast.Node) {
	lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit)
	if !ok {
		return // gorecover made every other go statement one of a literal
	}
	if inLoop, inFunc := c.scope(stack); !inLoop && !inFunc {
		return
	}
	c.hoist(g, g.Call, lit, "go", "_cg", stack)
}

// deferStmt makes a deferred call in a loop a closure of fresh variables;
// outside loops, it only takes the parentheses off a deferred literal
// (yaegi defers a literal in parentheses as a closure, which hangs).
func (c *closureCtx) deferStmt(d *ast.DeferStmt, stack []ast.Node) {
	fun := ast.Unparen(d.Call.Fun)
	lit, isLit := fun.(*ast.FuncLit)
	inLoop, inFunc := c.scope(stack)
	if !inLoop || !inFunc {
		if isLit && d.Call.Fun != fun && inFunc {
			c.edits = append(c.edits,
				edit{c.off(d.Call.Fun.Pos()), c.off(lit.Pos()), ""},
				edit{c.off(lit.End()), c.off(d.Call.Fun.End()), ""})
		}
		return
	}
	if isLit {
		if callsRecover(lit.Body) {
			return
		}
		c.hoist(d, d.Call, lit, "defer", "_cd", stack)
		return
	}
	if id, ok := fun.(*ast.Ident); ok && (id.Name == "recover" || id.Name == "panic") {
		return
	}
	if !c.inStatementList(stack) || c.hasComment(d) {
		return
	}
	n := itoa(c.off(d.Pos()))
	names, vals, args, ok := c.args(d.Call, "_cda"+n+"_")
	if !ok {
		return
	}
	var call string
	switch fn := fun.(type) {
	case *ast.SelectorExpr:
		id, ok := fn.X.(*ast.Ident)
		if !ok || c.isPkg == nil || !c.isPkg(id.Name) {
			// A method: without types, the receiver cannot be copied
			// safely (a struct with a pointer method, an interface).
			return
		}
		call = c.text(fn)
	case *ast.Ident:
		if builtinFuncs[fn.Name] {
			call = fn.Name
			break
		}
		names, vals = append([]string{"_cdc" + n}, names...), append([]string{c.text(fn)}, vals...)
		call = "_cdc" + n
	default:
		names, vals = append([]string{"_cdc" + n}, names...), append([]string{c.text(fn)}, vals...)
		call = "_cdc" + n
	}
	text := ""
	if len(names) > 0 {
		text = strings.Join(names, ", ") + " := " + strings.Join(vals, ", ") + "; "
	}
	text += "_cdf" + n + " := func() func() { return func() { " + call + args + " } }(); defer _cdf" + n + "()"
	text += strings.Repeat("\n", max(0, strings.Count(c.text(d), "\n")-strings.Count(text, "\n")))
	c.edits = append(c.edits, edit{c.off(d.Pos()), c.off(d.End()), text})
}

// hoist rewrites `kw LIT(args)` (stmt) into fresh variables for the
// arguments and a closure calling LIT with them, made in a frame of its
// own, and `kw` of that closure. The literal stays where it is, so its
// lines keep their numbers; arguments spanning lines are left alone.
func (c *closureCtx) hoist(stmt ast.Stmt, call *ast.CallExpr, lit *ast.FuncLit, kw, prefix string, stack []ast.Node) {
	if !c.inStatementList(stack) {
		return
	}
	head := c.src[c.off(stmt.Pos()):c.off(lit.Pos())]
	tail := c.src[c.off(lit.End()):c.off(stmt.End())]
	if strings.ContainsAny(head+tail, "\n") || strings.Contains(head+tail, "/*") || strings.Contains(head+tail, "//") {
		return
	}
	n := itoa(c.off(stmt.Pos()))
	names, vals, args, ok := c.args(call, prefix+"a"+n+"_")
	if !ok {
		return
	}
	pre := ""
	if len(names) > 0 {
		pre = strings.Join(names, ", ") + " := " + strings.Join(vals, ", ") + "; "
	}
	f := prefix + "f" + n
	c.edits = append(c.edits,
		edit{c.off(stmt.Pos()), c.off(lit.Pos()), pre + f + " := func() func() { return func() { "},
		edit{c.off(lit.End()), c.off(stmt.End()), args + " } }(); " + kw + " " + f + "()"})
}

// args names call's arguments by fresh variables (prefix and their index),
// constants and nil as written, and returns the call's new argument list.
func (c *closureCtx) args(call *ast.CallExpr, prefix string) (names, vals []string, list string, ok bool) {
	var out []string
	for i, a := range call.Args {
		if c.constant(a) {
			out = append(out, c.text(a))
			continue
		}
		val := c.text(a)
		if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
			typ, ok := oneLineType(lit.Type)
			if !ok {
				return nil, nil, "", false
			}
			val = "func() " + typ + " { return " + val + " }()"
		}
		name := prefix + itoa(i)
		names, vals, out = append(names, name), append(vals, val), append(out, name)
	}
	list = "(" + strings.Join(out, ", ")
	if call.Ellipsis.IsValid() {
		list += "..."
	}
	return names, vals, list + ")", true
}

// constant reports whether e looks constant: literals, nil, true, false,
// iota, the session's constants and the piece's, a package's member (a
// constant such as math.Pi, or a variable, which a cell rarely changes),
// and operators over them. Passed as written, such an argument keeps its
// untyped kind (a constant copied to a variable would take its default
// type, which the parameter may not have).
func (c *closureCtx) constant(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return isUntyped(e, c.isConst) || c.consts[e.Name]
	case *ast.SelectorExpr:
		id, ok := e.X.(*ast.Ident)
		return ok && c.isPkg != nil && c.isPkg(id.Name)
	case *ast.ParenExpr:
		return c.constant(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.AND && e.Op != token.ARROW && c.constant(e.X)
	case *ast.BinaryExpr:
		return c.constant(e.X) && c.constant(e.Y)
	}
	return false
}

// inStatementList reports whether the statement on top of stack's parent
// is a list of statements, where a definition can go before it.
func (c *closureCtx) inStatementList(stack []ast.Node) bool {
	if len(stack) == 0 {
		return false
	}
	switch stack[len(stack)-1].(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
		return true
	}
	return false
}

func (c *closureCtx) hasComment(n ast.Node) bool {
	t := c.text(n)
	return strings.Contains(t, "//") || strings.Contains(t, "/*")
}

// callsRecover reports whether body calls recover itself (not in a literal
// of its own).
func callsRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "recover" {
				found = true
			}
		}
		return !found
	})
	return found
}

// oneLineType prints a literal's type on one line (without comments), ok
// false when that does not parse.
func oneLineType(t *ast.FuncType) (string, bool) {
	var b strings.Builder
	if err := printer.Fprint(&b, token.NewFileSet(), t); err != nil {
		return "", false
	}
	s := strings.ReplaceAll(b.String(), "{\n", "{ ")
	s = strings.ReplaceAll(s, "\n}", " }")
	s = strings.ReplaceAll(s, "\n", "; ")
	if _, err := parser.ParseExpr(s); err != nil {
		return "", false
	}
	return s, true
}
