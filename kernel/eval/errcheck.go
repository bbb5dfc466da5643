package eval

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"unicode"

	"github.com/conclab/conclab/internal/cellsrc"
)

// The error idiom. A top-level statement of a cell that assigns to a
// variable named err
//
//	x, err := f()
//	err = g()
//	a, b, err := h()
//
// is followed by a check the session inserts, on the statement's own last
// line (so every line number stays the cell's):
//
//	x, err := f(); _conclabCheck(err, 3)
//
// When err then holds a non-nil error, the cell stops there and fails with
// an *Error whose Name is the error's type (see errorTypeName), Value its
// message, and whose Traceback is that message and the cell line: no Go
// stack. Only top-level statements are instrumented (an err declared in a
// block or a function is the code's own business), and not one that the
// cell's next statement reads err after (`if err != nil {...}`,
// `fmt.Println(err)`, a final expression `err`): a cell that checks err
// itself keeps doing so. A value that is not an error (err := 5) is never a
// failure. A `var err = ...` declaration is not instrumented.
//
// The final expression of a cell may also yield (value, error) — bench.Run's
// shape: a non-nil error fails the cell the same way, else the value is the
// cell's result (see Session.evalExpr).
//
// Why not a Must layer (Must(f()) or package-level MustX wrappers): generic
// helpers cross yaegi's symbol tables badly (a generic function of a linked
// package cannot be exported to the interpreter, an interpreted one loses
// the result's type for rendering), and wrapping every API twice doubles the
// surface. The idiom keeps Go APIs (value, error), testable as they are,
// and cells read like Go.

// checkCall is the inserted check; checkRE finds it in a source line.
const checkCall = "_conclabCheck(err, %d)"

var checkRE = regexp.MustCompile(`; _conclabCheck\(err, \d+\)`)

// instrumentErr inserts the error check after each top-level statement of
// segs that assigns to err and whose next Go unit (in any later segment)
// does not read err. Statement segments other than the final expression are
// instrumented; the others are only looked at.
func instrumentErr(segs []segment) []segment {
	type ref struct {
		seg        int
		start, end int
		text       string
		stmt       bool // a unit of a statement segment (not the final expression)
	}
	var units []ref
	for i, seg := range segs {
		switch seg.kind {
		case segShell, segMagic:
			units = append(units, ref{seg: i, start: -1})
			continue
		}
		us, _ := cellsrc.Units(seg.src)
		for _, u := range us {
			units = append(units, ref{seg: i, start: u.Start, end: u.End, text: seg.src[u.Start:u.End],
				stmt: seg.kind == segStmt && !seg.expr && !u.Declaration()})
		}
	}
	inserts := map[int][]ref{} // segment -> units to check after, in order
	for k, u := range units {
		if !u.stmt || !assignsErr(u.text) {
			continue
		}
		if k+1 < len(units) && units[k+1].start >= 0 && readsErr(units[k+1].text) {
			continue
		}
		inserts[u.seg] = append(inserts[u.seg], u)
	}
	if len(inserts) == 0 {
		return segs
	}
	out := slicesClone(segs)
	for i, us := range inserts {
		seg := out[i]
		var b strings.Builder
		last := 0
		for _, u := range us {
			line := seg.line + strings.Count(seg.src[:u.start], "\n")
			b.WriteString(seg.src[last:u.end])
			b.WriteString("; ")
			fmt.Fprintf(&b, checkCall, line)
			last = u.end
		}
		b.WriteString(seg.src[last:])
		out[i].src = b.String()
	}
	return out
}

func slicesClone(s []segment) []segment { return append([]segment(nil), s...) }

// parseStmts parses src as the statements of a function body.
func parseStmts(src string) ([]ast.Stmt, bool) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package main\nfunc _() {\n"+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return nil, false
	}
	fn, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || fn.Body == nil {
		return nil, false
	}
	return fn.Body.List, true
}

// assignsErr reports whether src is one assignment (= or :=) with err among
// its left-hand sides.
func assignsErr(src string) bool {
	if !strings.Contains(src, "err") {
		return false
	}
	sts, ok := parseStmts(src)
	if !ok || len(sts) != 1 {
		return false
	}
	as, ok := sts[0].(*ast.AssignStmt)
	if !ok || (as.Tok != token.DEFINE && as.Tok != token.ASSIGN) {
		return false
	}
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name == "err" {
			return true
		}
	}
	return false
}

// readsErr reports whether the statements of src use err other than as a
// left-hand side of an assignment. Source that does not parse as
// statements (declarations) does not read it.
func readsErr(src string) bool {
	if !strings.Contains(src, "err") {
		return false
	}
	sts, ok := parseStmts(src)
	if !ok {
		return false
	}
	assigned := map[*ast.Ident]bool{}
	reads := false
	for _, st := range sts {
		ast.Inspect(st, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				if x.Tok == token.DEFINE || x.Tok == token.ASSIGN {
					for _, l := range x.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							assigned[id] = true
						}
					}
				}
			case *ast.SelectorExpr:
				ast.Inspect(x.X, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok && id.Name == "err" {
						reads = true
					}
					return true
				})
				return false // x.Sel is a field or method name, not the variable
			case *ast.Ident:
				if x.Name == "err" && !assigned[x] {
					reads = true
				}
			}
			return !reads
		})
	}
	return reads
}

// cellFailure is the panic value of a failed check: the cell's error.
type cellFailure struct {
	err  error
	line int // 0: the line of the source it was raised in
}

// checkValue is the Go side of _conclabCheck: it panics with a
// *cellFailure when v is a non-nil error (not a nil pointer).
func checkValue(v any, line int) {
	err, ok := v.(error)
	if !ok || err == nil || isNil(err) {
		return
	}
	panic(&cellFailure{err: err, line: line})
}

// errorTypeName names err's type for a cell's error: the first error in
// err's chain (Unwrap) whose type is exported, as %T shows it
// ("*frame.ColumnError"), else "error" (a plain errors.New or fmt.Errorf
// error, or a type declared in a cell, whose name the interpreter does not
// keep).
func errorTypeName(err error) string {
	for e := err; e != nil; {
		if n := fmt.Sprintf("%T", e); exportedType(n) {
			return n
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			e = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) > 0 {
				e = es[0]
			} else {
				e = nil
			}
		default:
			e = nil
		}
	}
	return "error"
}

// panicErrorName is the Name of the Error for a panic with the error value
// err: the error's type (see errorTypeName), or "" (the Name stays "panic")
// for nil, a runtime error (nil map, index out of range ...), an error of
// reflect (the interpreter's own), log.Fatal's, or one of no exported type.
func panicErrorName(err error) string {
	if err == nil {
		return ""
	}
	if _, ok := err.(fatalLog); ok {
		return ""
	}
	var re runtime.Error
	if errors.As(err, &re) {
		return ""
	}
	n := errorTypeName(err)
	if n == "error" || strings.HasPrefix(strings.TrimLeft(n, "*"), "reflect.") {
		return ""
	}
	return n
}

// exportedType reports whether a %T name ("*pkg.Name", "main.T") names an
// exported type of a package.
func exportedType(n string) bool {
	n = strings.TrimLeft(n, "*[]")
	pkg, name, ok := strings.Cut(n, ".")
	if !ok || name == "" || strings.ContainsAny(n, " {}()") || pkg == "main" {
		return false
	}
	r := []rune(name)
	return unicode.IsUpper(r[0]) && !strings.Contains(pkg, "interp")
}

// failureError is the cell's *Error for a failed check; code is the cell,
// line the failing line.
func failureError(err error, line int, code string) *Error {
	e := &Error{Name: errorTypeName(err), Value: err.Error(), Line: line}
	e.Traceback = []string{e.Name + ": " + e.Value}
	if line > 0 {
		if l := cellLine(code, line); l != "" {
			e.Traceback = append(e.Traceback, fmt.Sprintf("  at cell line %d: %s", line, l))
		}
	}
	return e
}

// cellLine returns the 1-based line n of code, trimmed, without an inserted
// check.
func cellLine(code string, n int) string {
	lines := strings.Split(code, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(checkRE.ReplaceAllString(lines[n-1], ""))
}

// asCellFailure returns the *cellFailure a panic value is or wraps.
func asCellFailure(v any) (*cellFailure, bool) {
	if f, ok := v.(*cellFailure); ok {
		return f, true
	}
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		f, ok := rv.Interface().(*cellFailure)
		return f, ok
	}
	if e, ok := v.(error); ok {
		var f *cellFailure
		if errors.As(e, &f) {
			return f, true
		}
	}
	return nil, false
}

func (f *cellFailure) Error() string { return f.err.Error() }
