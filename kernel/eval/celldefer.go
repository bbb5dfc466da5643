package eval

import (
	"fmt"
	"go/ast"
	"sort"
	"strings"
)

// A defer statement at the top level of a cell runs when the cell ends, as
// a defer in main runs when main returns (the celldefer pass). yaegi runs
// each piece of a cell as a function of its own, so a top-level
// `defer cancel()` after `ctx, cancel := context.WithTimeout(...)` would
// run at once, and the cell would go on with a cancelled context.
//
//	defer f(a, b)      -> { _cgd0, _cgd1, _cgd2 := f, a, b; _conclabDefer(func() { _cgd0(_cgd1, _cgd2) }) }
//	defer x.M(a)       -> { _cgdr, _cgd1 := x, a; _conclabDefer(func() { _cgdr.M(_cgd1) }) }
//	defer pkg.F(a)     -> { _cgd1 := a; _conclabDefer(func() { pkg.F(_cgd1) }) }
//	defer close(ch)    -> { _cgd1 := ch; _conclabDefer(func() { close(_cgd1) }) }
//
// The function and its arguments are evaluated at the defer statement, as
// Go specifies (constants and nil are passed as written); the deferred
// calls run last first when the cell ends — also when it fails (a panic, a
// failed err check), as deferred calls run when main panics, but not when it
// is interrupted (an interrupt stops the program). A deferred call that
// panics fails the cell. Defer statements inside functions are Go's own.
// Line numbers are unchanged.
func deferAtCellEnd(src string, decl bool, isPkg, isConst func(string) bool) string {
	if decl || !strings.Contains(src, "defer") {
		return src
	}
	f, off, ok := parseSegment(src, decl)
	if !ok {
		return src
	}
	text := func(n ast.Node) string { return src[off(n.Pos()):off(n.End())] }
	var edits []edit
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its defers are its own
		case *ast.DeferStmt:
			if off(n.Pos()) < 0 || off(n.End()) > len(src) {
				return false
			}
			var names, vals []string
			var fun string
			switch fn := ast.Unparen(n.Call.Fun).(type) {
			case *ast.Ident:
				if builtinFuncs[fn.Name] {
					fun = fn.Name
				} else {
					names, vals, fun = append(names, "_cgd0"), append(vals, text(fn)), "_cgd0"
				}
			case *ast.SelectorExpr:
				if id, ok := fn.X.(*ast.Ident); ok && isPkg != nil && isPkg(id.Name) {
					fun = text(fn)
				} else {
					names, vals = append(names, "_cgdr"), append(vals, text(fn.X))
					fun = "_cgdr." + fn.Sel.Name
				}
			default:
				names, vals, fun = append(names, "_cgd0"), append(vals, text(n.Call.Fun)), "_cgd0"
			}
			var args []string
			for i, a := range n.Call.Args {
				if isLiteral(a) || isUntyped(a, isConst) {
					args = append(args, text(a))
					continue
				}
				name := fmt.Sprintf("_cgd%d", i+1)
				names, vals, args = append(names, name), append(vals, text(a)), append(args, name)
			}
			call := fun + "(" + strings.Join(args, ", ")
			if n.Call.Ellipsis.IsValid() {
				call += "..."
			}
			call += ")"
			out := "{ "
			if len(names) > 0 {
				out += strings.Join(names, ", ") + " := " + strings.Join(vals, ", ") + "; "
			}
			out += "_conclabDefer(func() { " + call + " }) }"
			if d := strings.Count(text(n), "\n") - strings.Count(out, "\n"); d > 0 {
				out += strings.Repeat("\n", d)
			}
			edits = append(edits, edit{off(n.Pos()), off(n.End()), out})
			return false
		}
		return true
	})
	if len(edits) == 0 {
		return src
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	for _, e := range edits {
		src = src[:e.from] + e.text + src[e.to:]
	}
	return src
}

// addDefer registers a deferred call of the running cell.
func (s *Session) addDefer(f func()) {
	s.mu.Lock()
	s.deferred = append(s.deferred, f)
	s.mu.Unlock()
}

// runDeferred runs the cell's deferred calls, last first, and forgets
// them. A panic in one fails the cell (when nothing else did): it is
// returned as an *Error; the calls after it still run.
func (s *Session) runDeferred(run bool) (err error) {
	s.mu.Lock()
	fs := s.deferred
	s.deferred = nil
	s.mu.Unlock()
	if !run {
		return nil
	}
	for i := len(fs) - 1; i >= 0; i-- {
		func() {
			defer func() {
				if r := recover(); r != nil && err == nil {
					msg := fmt.Sprint(r)
					err = &Error{Name: "panic", Value: msg + " (in a call the cell deferred)",
						Traceback: []string{"panic: " + msg, "  in a call the cell deferred (it runs when the cell ends)"}}
				}
			}()
			fs[i]()
		}()
	}
	return err
}
