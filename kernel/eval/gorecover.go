package eval

import (
	"go/ast"
	"go/token"
	"sort"
	"strings"
)

// goGuard is inserted at the start of every goroutine a cell starts: an
// unrecovered panic in a goroutine would otherwise end the whole process
// (and the kernel). It reports the panic on stderr instead, and the cell
// that started the goroutine fails if it is still running. It also records
// the goroutine as the cell's while it runs, so that the cell's interrupt
// ends it (cellscope.go). CELL names the variable holding that cell's
// number, taken at the go statement.
const goGuard = `_conclabGoEnter(CELL); defer func() { _conclabGoLeave(); if r := recover(); r != nil { _conclabGoPanic(CELL, r) } }(); `

func guardFor(cellVar string) string { return strings.ReplaceAll(goGuard, "CELL", cellVar) }

var builtinFuncs = map[string]bool{"append": true, "cap": true, "clear": true, "close": true, "complex": true,
	"copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true}

// guardGoroutines rewrites the go statements of src so that a panic in the
// goroutine is recovered:
//
//	go func(...) {...}(args)   -> { _cgcN := _conclabCell(); go func(...) { goGuard; ... }(args) }
//	go f(a, b)                 -> { _cgcN, _cg0, _cg1, _cg2 := _conclabCell(), f, a, b; go func() { goGuard; _cg0(_cg1, _cg2) }() }
//	go x.M(a)                  -> { _cgcN, _cgr, _cg1 := _conclabCell(), x, a; go func() { goGuard; _cgr.M(_cg1) }() }
//	go pkg.F(a)                -> { _cgcN, _cg1 := _conclabCell(), a; go func() { goGuard; pkg.F(_cg1) }() }
//
// where N is the statement's offset, so nested statements do not shadow
// each other's variables. The function (for x.M: the receiver x) and the
// arguments are evaluated where the go statement is, as Go specifies: yaegi
// shares one loop variable between iterations, so `for _, w := range ws {
// go w.Run() }` must copy w at the go statement. A method value x.M itself
// is not stored (yaegi cannot hold a method value of a compiled type in a
// variable), and isPkg tells package names, whose functions need no copy.
// One difference from Go remains: for a struct variable x (not a pointer)
// and a method with a pointer receiver, M runs on the copy; write
// go (&x).M() for that.
//
// _cgcN is the number of the cell running the go statement; a go statement
// inside a guarded function literal reuses the literal's, so a panic fails
// the cell that started the first goroutine. Line numbers are unchanged.
// Sources that do not parse are returned as is; the caller retries the
// original source when the rewritten one does not compile (e.g. an untyped
// constant argument whose parameter is not its default type); untyped nil,
// true, false and constants declared by cells (isConst) are passed as
// written. A go
// statement inside an argument of another go statement is left unguarded.
func guardGoroutines(src string, decl bool, isPkg, isConst func(name string) bool) string {
	f, off, ok := parseSegment(src, decl)
	if !ok {
		return src
	}
	text := func(n ast.Node) string { return src[off(n.Pos()):off(n.End())] }
	var edits []edit
	// One entry per open level of the walk: the cell variable of the go
	// statement whose function literal opened it, or "".
	var stack []string
	enclosing := func() string {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i] != "" {
				return stack[i]
			}
		}
		return ""
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		g, ok := n.(*ast.GoStmt)
		if !ok || off(g.Pos()) < 0 || off(g.End()) > len(src) {
			stack = append(stack, "")
			return true
		}
		cellVar, cellVal := "_cgc"+itoa(off(g.Pos())), "_conclabCell()"
		if outer := enclosing(); outer != "" {
			cellVal = outer
		}
		if lit, ok := g.Call.Fun.(*ast.FuncLit); ok && lit.Body != nil {
			o := off(lit.Body.Lbrace) + 1
			edits = append(edits,
				edit{off(g.Pos()), off(g.Pos()), "{ " + cellVar + " := " + cellVal + "; "},
				edit{o, o, guardFor(cellVar)},
				edit{off(g.End()), off(g.End()), " }"})
			stack = append(stack, cellVar)
			return true
		}
		if id, ok := g.Call.Fun.(*ast.Ident); ok && builtinFuncs[id.Name] {
			stack = append(stack, "")
			return true
		}
		names := []string{cellVar}
		vals := []string{cellVal}
		var fun string
		switch fn := ast.Unparen(g.Call.Fun).(type) {
		case *ast.SelectorExpr:
			if id, ok := fn.X.(*ast.Ident); ok && isPkg != nil && isPkg(id.Name) {
				fun = text(fn) // a package's function
			} else {
				names, vals = append(names, "_cgr"), append(vals, text(fn.X))
				fun = "_cgr." + fn.Sel.Name
			}
		default:
			names, vals = append(names, "_cg0"), append(vals, text(g.Call.Fun))
			fun = "_cg0"
		}
		var args []string
		for i, a := range g.Call.Args {
			if isLiteral(a) || isUntyped(a, isConst) { // constants and nil keep their untyped type
				args = append(args, text(a))
				continue
			}
			n := "_cg" + itoa(i+1)
			names = append(names, n)
			vals = append(vals, text(a))
			args = append(args, n)
		}
		call := fun + "(" + strings.Join(args, ", ")
		if g.Call.Ellipsis.IsValid() {
			call += "..."
		}
		call += ")"
		rewritten := "{ " + strings.Join(names, ", ") + " := " + strings.Join(vals, ", ") +
			"; go func() { " + guardFor(cellVar) + call + " }() }"
		// Keep the line count: arguments on several lines are joined here.
		if d := strings.Count(text(g), "\n") - strings.Count(rewritten, "\n"); d > 0 {
			rewritten += strings.Repeat("\n", d)
		}
		edits = append(edits, edit{off(g.Pos()), off(g.End()), rewritten})
		return false
	})
	if len(edits) == 0 {
		return src
	}
	// Last offset first; at one offset, a replacement before an insertion,
	// so the insertion lands in front of the replaced text.
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].from != edits[j].from {
			return edits[i].from > edits[j].from
		}
		return edits[i].to > edits[j].to
	})
	for _, e := range edits {
		src = src[:e.from] + e.text + src[e.to:]
	}
	return src
}

// isUntyped reports whether e is nil, true, false or a name isConst
// reports: copying it to a variable would give it a default type (or none,
// for nil) that the parameter may not have.
func isUntyped(e ast.Expr, isConst func(string) bool) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	switch id.Name {
	case "nil", "true", "false", "iota":
		return true
	}
	return isConst != nil && isConst(id.Name)
}

// isLiteral reports whether e is a basic literal (possibly negated).
func isLiteral(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.UnaryExpr:
		return (e.Op == token.SUB || e.Op == token.ADD) && isLiteral(e.X)
	case *ast.ParenExpr:
		return isLiteral(e.X)
	}
	return false
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
