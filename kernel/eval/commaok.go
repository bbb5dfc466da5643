package eval

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// yaegi v0.16 cannot compile a comma-ok assignment that defines variables
// at the top level of a cell (they become session globals): `v, ok :=
// m["k"]`, `n, ok := i.(int)`, `x, ok := <-ch` and their `var v, ok = ...`
// forms panic in its compiler with "nil type", and so does a top-level if,
// for, switch or select whose init, body or case defines with comma-ok
// (`if v, ok := m[k]; ok {...}`). A top-level `func() {... v, ok := ...}()`
// compiles but is run again by every later cell. The same code works in a
// declared func. The same holds for several variables defined from one call
// (`v, err := f()`) inside a block of a top-level statement (definesFromCall).
// rewriteCommaOk turns these into forms yaegi takes, keeping
// the line count and evaluating each operand once:
//
//	n, ok := i.(T)   ->  n := *new(T); ok := false; n, ok = i.(T)
//	v, ok := m[k]    ->  ok := false; v := m[k]; v, ok = m[k]
//	x, ok := <-ch    ->  x := *new(E); ok := false; x, ok = <-ch
//	if v, ok := ...  ->  func _cokfN() { if v, ok := ... }   (a declaration)
//	                     _cokfN()
//
// For a map index, m and k are evaluated twice when they are plain names,
// selectors or literals (a map lookup has no side effects), else they are
// first assigned to temporaries _cokmN, _cokkN. For a receive, E is the
// channel's element type: from a `make(chan E)` or `var ch chan E` in the
// same source, else from elemType (the session's global of that name); a
// receive whose element type is unknown is left as is (and fails to
// compile with a hint). Any other top-level statement that defines with
// comma-ok somewhere inside (an if, a loop, a call of a function literal),
// and any call of a function literal (see isFuncLitCall), becomes a function
// declared and called at once, so the source is cut into pieces run in
// order. Sources that do not parse come back as one piece.
func rewriteCommaOk(src string, elemType func(ch string) (string, bool)) []piece {
	whole := []piece{{src: src}}
	if !strings.Contains(src, ",") && !strings.Contains(src, "func") {
		return whole
	}
	const prefix = "package main\nfunc _() {\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return whole
	}
	fn, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || fn.Body == nil {
		return whole
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset - len(prefix) }
	text := func(n ast.Node) string { return src[off(n.Pos()):off(n.End())] }
	chanElems := chanElemTypes(fn.Body, text)
	declared := map[string]bool{} // names defined earlier in this source
	var pieces []piece
	var cur strings.Builder // the statement piece being built
	curLine := 0
	last := 0 // end of the source consumed
	tmp, fns := 0, 0
	lineOf := func(o int) int { return strings.Count(src[:o], "\n") }
	for _, st := range fn.Body.List {
		from, to := off(st.Pos()), off(st.End())
		if from < 0 || to > len(src) || from < last {
			return whole
		}
		lhs, rhs := commaOkParts(st)
		if rhs != nil {
			out, ok := rewriteOne(lhs, rhs, text, declared, chanElems, elemType, &tmp)
			if !ok {
				continue
			}
			if d := strings.Count(text(st), "\n") - strings.Count(out, "\n"); d > 0 {
				out += strings.Repeat("\n", d)
			}
			cur.WriteString(src[last:from])
			cur.WriteString(out)
			last = to
			for _, l := range lhs {
				declared[l.Name] = true
			}
			continue
		}
		for _, n := range definedNames(st) {
			declared[n] = true
		}
		if _, isDef := st.(*ast.AssignStmt); isDef || !(hasCommaOkDefine(st) || isFuncLitCall(st)) {
			continue
		}
		if _, isDecl := st.(*ast.DeclStmt); isDecl {
			continue
		}
		cur.WriteString(src[last:from])
		if strings.TrimSpace(cur.String()) != "" {
			pieces = append(pieces, piece{src: cur.String(), line: curLine})
		}
		name := "_cokf" + itoa(fns)
		fns++
		ln := lineOf(from)
		pieces = append(pieces,
			piece{src: "func " + name + "() { " + text(st) + " }", decl: true, line: ln},
			piece{src: name + "()", line: ln})
		cur.Reset()
		last = to
		curLine = lineOf(to)
	}
	if len(pieces) == 0 && last == 0 {
		return whole
	}
	cur.WriteString(src[last:])
	if strings.TrimSpace(cur.String()) != "" {
		pieces = append(pieces, piece{src: cur.String(), line: curLine})
	}
	return pieces
}

// declCommaOk cuts a declaration segment at each `var a, b = X` of a
// comma-ok X (see rewriteCommaOk), which becomes a statement piece; the
// declarations around it stay declaration pieces. A source without one
// comes back as one piece.
func declCommaOk(src string, elemType func(ch string) (string, bool)) []piece {
	whole := []piece{{src: src, decl: true}}
	if !strings.Contains(src, ",") {
		return whole
	}
	const prefix = "package main\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src, parser.SkipObjectResolution)
	if err != nil {
		return whole
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset - len(prefix) }
	text := func(n ast.Node) string { return src[off(n.Pos()):off(n.End())] }
	lineOf := func(o int) int { return strings.Count(src[:o], "\n") }
	var pieces []piece
	last, tmp := 0, 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR || len(g.Specs) != 1 {
			continue
		}
		lhs, rhs := commaOkParts(&ast.DeclStmt{Decl: g})
		if rhs == nil {
			continue
		}
		out, ok := rewriteOne(lhs, rhs, text, map[string]bool{}, nil, elemType, &tmp)
		if !ok {
			continue
		}
		from, to := off(g.Pos()), off(g.End())
		if from < last || to > len(src) {
			return whole
		}
		if before := src[last:from]; strings.TrimSpace(before) != "" {
			pieces = append(pieces, piece{src: before, decl: true, line: lineOf(last)})
		}
		pieces = append(pieces, piece{src: out, line: lineOf(from)})
		last = to
	}
	if len(pieces) == 0 {
		return whole
	}
	if rest := src[last:]; strings.TrimSpace(rest) != "" {
		pieces = append(pieces, piece{src: rest, decl: true, line: lineOf(last)})
	}
	return pieces
}

// rewriteOne returns the replacement of one top-level comma-ok definition.
func rewriteOne(lhs []*ast.Ident, rhs ast.Expr, text func(ast.Node) string, declared map[string]bool,
	chanElems map[string]string, elemType func(string) (string, bool), tmp *int) (string, bool) {
	names := []string{lhs[0].Name, lhs[1].Name}
	define := func(name, zero string) string {
		if name == "_" || declared[name] {
			return ""
		}
		return name + " := " + zero + "; "
	}
	var b strings.Builder
	assign := names[0] + ", " + names[1] + " = "
	switch x := rhs.(type) {
	case *ast.TypeAssertExpr:
		b.WriteString(define(names[0], "*new("+text(x.Type)+")"))
		b.WriteString(define(names[1], "false"))
		b.WriteString(assign + text(x))
	case *ast.IndexExpr:
		m, k := text(x.X), text(x.Index)
		if !pureExpr(x.X) {
			t := "_cokm" + itoa(*tmp)
			b.WriteString(t + " := " + m + "; ")
			m = t
		}
		if !pureExpr(x.Index) {
			t := "_cokk" + itoa(*tmp)
			b.WriteString(t + " := " + k + "; ")
			k = t
		}
		*tmp++
		b.WriteString(define(names[1], "false"))
		b.WriteString(define(names[0], m+"["+k+"]"))
		b.WriteString(assign + m + "[" + k + "]")
	case *ast.UnaryExpr: // <-ch
		ch := text(x.X)
		elem, ok := chanElems[ch]
		if !ok && elemType != nil {
			elem, ok = elemType(ch)
		}
		if !ok {
			return "", false
		}
		b.WriteString(define(names[0], "*new("+elem+")"))
		b.WriteString(define(names[1], "false"))
		b.WriteString(assign + text(x))
	default:
		return "", false
	}
	return b.String(), true
}

// isFuncLitCall reports whether st calls a function literal: yaegi runs a
// top-level `func() {...}()` again with every later cell (until another
// one replaces it), so it too becomes a declared function.
func isFuncLitCall(st ast.Stmt) bool {
	e, ok := st.(*ast.ExprStmt)
	if !ok {
		return false
	}
	c, ok := ast.Unparen(e.X).(*ast.CallExpr)
	if !ok {
		return false
	}
	_, ok = ast.Unparen(c.Fun).(*ast.FuncLit)
	return ok
}

// hoistFuncLitCall splits an expression `func(params) results {...}(args)`
// into the declaration `func _cokfN(params) results {...}` and the call
// `_cokfN(args)`, keeping the line count (see isFuncLitCall).
func hoistFuncLitCall(src string, n int) (decl, call string, ok bool) {
	e, err := parser.ParseExpr(src)
	if err != nil {
		return "", "", false
	}
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return "", "", false
	}
	lit, ok := c.Fun.(*ast.FuncLit)
	if !ok || lit.Type.Params == nil || !lit.Type.Params.Opening.IsValid() {
		return "", "", false
	}
	at := func(p token.Pos) int { return int(p) - 1 }
	name := "_cokfh" + itoa(n)
	decl = "func " + name + src[at(lit.Type.Params.Opening):at(lit.End())]
	call = name + src[at(c.Lparen):at(c.End())]
	if at(lit.End()) > at(c.Lparen) || at(c.End()) > len(src) {
		return "", "", false
	}
	return decl, call, true
}

// commaOkParts returns the two defined names and the comma-ok operand of a
// statement `a, b := X` or `var a, b = X` (X an index, a type assertion or
// a receive), or nil.
func commaOkParts(st ast.Stmt) (lhs []*ast.Ident, rhs ast.Expr) {
	var l []ast.Expr
	var r []ast.Expr
	switch s := st.(type) {
	case *ast.AssignStmt:
		if s.Tok != token.DEFINE {
			return nil, nil
		}
		l, r = s.Lhs, s.Rhs
	case *ast.DeclStmt:
		g, ok := s.Decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR || len(g.Specs) != 1 {
			return nil, nil
		}
		vs := g.Specs[0].(*ast.ValueSpec)
		if vs.Type != nil {
			return nil, nil
		}
		for _, n := range vs.Names {
			l = append(l, n)
		}
		r = vs.Values
	default:
		return nil, nil
	}
	if len(l) != 2 || len(r) != 1 || !isCommaOkExpr(r[0]) {
		return nil, nil
	}
	for _, e := range l {
		id, ok := e.(*ast.Ident)
		if !ok {
			return nil, nil
		}
		lhs = append(lhs, id)
	}
	return lhs, ast.Unparen(r[0])
}

func isCommaOkExpr(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.IndexExpr:
		return true
	case *ast.TypeAssertExpr:
		return x.Type != nil
	case *ast.UnaryExpr:
		return x.Op == token.ARROW
	}
	return false
}

// pureExpr reports whether evaluating e twice is harmless and gives the
// same value: names, selectors, literals and indexes of those.
func pureExpr(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.SelectorExpr:
		return pureExpr(x.X)
	case *ast.ParenExpr:
		return pureExpr(x.X)
	case *ast.UnaryExpr:
		return (x.Op == token.SUB || x.Op == token.ADD) && pureExpr(x.X)
	}
	return false
}

// hasCommaOkDefine reports whether st defines variables with comma-ok
// anywhere, function literals included.
func hasCommaOkDefine(st ast.Stmt) bool {
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *ast.CommClause:
			if x.Comm != nil {
				if _, r := commaOkParts(x.Comm); r != nil {
					found = true
				}
			}
		case ast.Stmt:
			if _, r := commaOkParts(x); r != nil || definesFromCall(x) {
				found = true
			}
		}
		return true
	})
	return found
}

// definesFromCall reports whether st defines several variables from one
// call (`v, err := f()`, `var a, b = f()`): inside a block of a top-level
// statement, yaegi v0.16 compiles it into nothing ("undefined: v"), as it
// does a comma-ok there; in a declared func it works.
func definesFromCall(st ast.Stmt) bool {
	var lhs int
	var rhs []ast.Expr
	switch s := st.(type) {
	case *ast.AssignStmt:
		if s.Tok != token.DEFINE {
			return false
		}
		lhs, rhs = len(s.Lhs), s.Rhs
	case *ast.DeclStmt:
		g, ok := s.Decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			return false
		}
		for _, sp := range g.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Names) >= 2 && len(vs.Values) == 1 {
				if _, call := ast.Unparen(vs.Values[0]).(*ast.CallExpr); call {
					return true
				}
			}
		}
		return false
	default:
		return false
	}
	if lhs < 2 || len(rhs) != 1 {
		return false
	}
	_, call := ast.Unparen(rhs[0]).(*ast.CallExpr)
	return call
}

// definedNames returns the names a top-level statement defines.
func definedNames(st ast.Stmt) []string {
	var out []string
	switch s := st.(type) {
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					out = append(out, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok {
			for _, sp := range g.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					for _, n := range vs.Names {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}

// chanElemTypes returns the element types of the channels a body declares
// evidently: ch := make(chan E, ...), var ch = make(chan E), var ch chan E.
func chanElemTypes(body *ast.BlockStmt, text func(ast.Node) string) map[string]string {
	out := map[string]string{}
	elemOf := func(e ast.Expr) (string, bool) {
		if c, ok := e.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "make" && len(c.Args) > 0 {
				e = c.Args[0]
			}
		}
		if ct, ok := e.(*ast.ChanType); ok && ct.Dir&ast.RECV != 0 {
			return text(ct.Value), true
		}
		return "", false
	}
	for _, st := range body.List {
		switch s := st.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE && len(s.Lhs) == len(s.Rhs) {
				for i, l := range s.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						if t, ok := elemOf(s.Rhs[i]); ok {
							out[id.Name] = t
						}
					}
				}
			}
		case *ast.DeclStmt:
			g, ok := s.Decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if vs.Type != nil {
						if t, ok := elemOf(vs.Type); ok {
							out[n.Name] = t
						}
					} else if i < len(vs.Values) {
						if t, ok := elemOf(vs.Values[i]); ok {
							out[n.Name] = t
						}
					}
				}
			}
		}
	}
	return out
}
