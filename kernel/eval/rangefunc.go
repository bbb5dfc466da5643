package eval

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// passRangeFunc rewrites a range over a function (an iterator, Go 1.23)
// into a call of the function with the loop body as its yield function,
// as the Go compiler does: yaegi cannot range over a function.
//
//	for k, v := range seq { BODY }
//
// becomes, on the same lines,
//
//	{ var _rfN int; seq(func(k K, v V) bool { BODY'; return true }); if _rfN == 1 { ... } }
//
// where BODY' is BODY with `continue` turned into `return true` and `break`
// into `return false`; a return from the enclosing function, and a break or
// continue of an outer loop, store a code in _rfN (the values returned in
// temporaries), end the iteration with `return false`, and are issued again
// after the call. Each iteration gets fresh variables, as in Go. Not
// rewritten (left to fail as the interpreter fails): a loop whose element
// types cannot be written, a goto leaving the body. A defer in the body
// runs when the iteration ends, not when the enclosing function returns.
func passRangeFunc(tc *typedCtx) []edit {
	rf := &rangeFuncs{tc: tc, loops: map[*ast.RangeStmt]*rfLoop{}}
	for _, n := range tc.nodes {
		rs, ok := n.(*ast.RangeStmt)
		if !ok {
			continue
		}
		sig, ok := under(tc.c.info.Types[rs.X].Type).(*types.Signature)
		if !ok || sig.Params().Len() != 1 {
			continue
		}
		yield, ok := under(sig.Params().At(0).Type()).(*types.Signature)
		if !ok || yield.Results().Len() != 1 || yield.Params().Len() > 2 {
			continue
		}
		rf.loops[rs] = &rfLoop{rs: rs, yield: yield, id: tc.fresh("_rf")}
	}
	if len(rf.loops) == 0 {
		return nil
	}
	return rf.rewrite()
}

type rfLoop struct {
	rs    *ast.RangeStmt
	yield *types.Signature
	id    string
	exits []rfExit // statements leaving the loop, reissued after the call
	// temps are the result temporaries of the enclosing function's
	// returns, declared by the outermost loop of the function.
	temps   []string
	tempDef string
	bad     bool
}

type rfExit struct {
	code    int
	reissue string
}

type rangeFuncs struct {
	tc    *typedCtx
	loops map[*ast.RangeStmt]*rfLoop
	edits []edit
}

// chain returns the range-over-function loops enclosing n inside its
// function, innermost first, and that function (nil at the top level).
func (rf *rangeFuncs) chain(n ast.Node) (loops []*rfLoop, fn ast.Node) {
	for p := rf.tc.parents[n]; p != nil; p = rf.tc.parents[p] {
		switch p := p.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return loops, p
		case *ast.BlockStmt:
			if rs, ok := rf.tc.parents[p].(*ast.RangeStmt); ok && rs.Body == p {
				if l := rf.loops[rs]; l != nil {
					loops = append(loops, l)
				}
			}
		}
	}
	return loops, nil
}

// within reports whether node n is inside node outer.
func (rf *rangeFuncs) within(n, outer ast.Node) bool {
	for p := n; p != nil; p = rf.tc.parents[p] {
		if p == outer {
			return true
		}
	}
	return false
}

// labelWithin reports whether the label a goto jumps to is declared
// inside block b.
func (rf *rangeFuncs) labelWithin(g *ast.BranchStmt, b *ast.BlockStmt) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		if ls, ok := n.(*ast.LabeledStmt); ok && ls.Label.Name == g.Label.Name {
			found = true
		}
		_, lit := n.(*ast.FuncLit)
		return !found && !lit
	})
	return found
}

// target is the statement a break or continue leaves.
func (rf *rangeFuncs) target(br *ast.BranchStmt) ast.Node {
	if br.Label != nil {
		for p := rf.tc.parents[br]; p != nil; p = rf.tc.parents[p] {
			if ls, ok := p.(*ast.LabeledStmt); ok && ls.Label.Name == br.Label.Name {
				return ls.Stmt
			}
			if _, ok := p.(*ast.FuncLit); ok {
				return nil
			}
		}
		return nil
	}
	for p := rf.tc.parents[br]; p != nil; p = rf.tc.parents[p] {
		switch p.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return p
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if br.Tok == token.BREAK {
				return p
			}
		case *ast.FuncLit, *ast.FuncDecl:
			return nil
		}
	}
	return nil
}

func (rf *rangeFuncs) rewrite() []edit {
	tc := rf.tc
	// A goto leaving a loop's body cannot be rewritten: that loop (and the
	// loops around it) stay as written.
	for _, n := range tc.nodes {
		if s, ok := n.(*ast.BranchStmt); ok && s.Tok == token.GOTO {
			loops, _ := rf.chain(s)
			for i, l := range loops {
				if !rf.labelWithin(s, l.rs.Body) {
					for _, m := range loops[i:] {
						m.bad = true
					}
					break
				}
			}
		}
	}
	bad := func(loops []*rfLoop) bool {
		for _, l := range loops {
			if l.bad {
				return true
			}
		}
		return false
	}
	// Branches and returns inside the loops' bodies.
	for _, n := range tc.nodes {
		switch s := n.(type) {
		case *ast.BranchStmt:
			if s.Tok != token.BREAK && s.Tok != token.CONTINUE {
				continue
			}
			loops, _ := rf.chain(s)
			if len(loops) == 0 || bad(loops) {
				continue
			}
			t := rf.target(s)
			if t == nil {
				continue
			}
			rf.branch(s, t, loops)
		case *ast.ReturnStmt:
			loops, fn := rf.chain(s)
			if len(loops) == 0 || bad(loops) {
				continue
			}
			rf.ret(s, loops, fn)
		}
	}
	for _, l := range rf.loops {
		if l.bad {
			continue
		}
		rf.loop(l)
	}
	return rf.edits
}

// branch rewrites a break or continue inside loops (innermost first)
// leaving for target t.
func (rf *rangeFuncs) branch(s *ast.BranchStmt, t ast.Node, loops []*rfLoop) {
	text := rf.tc.c.src[rf.tc.off(s.Pos()):rf.tc.off(s.End())]
	cont := s.Tok == token.CONTINUE
	var level func(i int) (string, bool)
	level = func(i int) (string, bool) {
		if i == len(loops) {
			return text, false
		}
		l := loops[i]
		if t == ast.Node(l.rs) {
			if cont {
				return "return true", true
			}
			return "return false", true
		}
		if rf.within(t, l.rs.Body) {
			return text, false
		}
		again, _ := level(i + 1)
		code := len(l.exits) + 1
		l.exits = append(l.exits, rfExit{code: code, reissue: again})
		return "{ " + l.id + " = " + strconv.Itoa(code) + "; return false }", true
	}
	if repl, changed := level(0); changed {
		rf.edits = append(rf.edits, rf.tc.replace(s.Pos(), s.End(), repl))
	}
}

// ret rewrites a return inside loops (innermost first) of function fn.
func (rf *rangeFuncs) ret(s *ast.ReturnStmt, loops []*rfLoop, fn ast.Node) {
	tc := rf.tc
	outer := loops[len(loops)-1]
	var results *types.Tuple
	switch f := fn.(type) {
	case *ast.FuncLit:
		if sig, ok := tc.c.info.Types[f].Type.(*types.Signature); ok {
			results = sig.Results()
		}
	case *ast.FuncDecl:
		if o, ok := tc.c.info.Defs[f.Name].(*types.Func); ok {
			results = o.Type().(*types.Signature).Results()
		}
	}
	final := "return"
	if len(s.Results) > 0 {
		if results == nil {
			for _, l := range loops {
				l.bad = true
			}
			return
		}
		if outer.temps == nil {
			var defs []string
			for i := 0; i < results.Len(); i++ {
				t, ok := tc.typeString(results.At(i).Type())
				if !ok {
					for _, l := range loops {
						l.bad = true
					}
					return
				}
				name := outer.id + "r" + strconv.Itoa(i)
				outer.temps = append(outer.temps, name)
				defs = append(defs, "var "+name+" "+t+"; ")
			}
			outer.tempDef = strings.Join(defs, "")
		}
		final = "return " + strings.Join(outer.temps, ", ")
	}
	// Inside out: the innermost loop stores the values and its code.
	reissue := final
	for i := len(loops) - 1; i >= 1; i-- {
		l := loops[i]
		code := len(l.exits) + 1
		l.exits = append(l.exits, rfExit{code: code, reissue: reissue})
		reissue = "{ " + l.id + " = " + strconv.Itoa(code) + "; return false }"
	}
	inner := loops[0]
	code := len(inner.exits) + 1
	inner.exits = append(inner.exits, rfExit{code: code, reissue: reissue})
	tail := inner.id + " = " + strconv.Itoa(code) + "; return false }"
	if len(s.Results) == 0 {
		rf.edits = append(rf.edits, tc.replace(s.Pos(), s.End(), "{ "+tail))
		return
	}
	// The values stay where they are written: `return a, b` becomes
	// `{ _rfNr0, _rfNr1 = a, b; _rfN = 1; return false }`.
	rf.edits = append(rf.edits,
		tc.replace(s.Pos(), s.Results[0].Pos(), "{ "+strings.Join(outer.temps, ", ")+" = "),
		tc.insertAt(s.End(), "; "+tail))
}

// loop rewrites the loop's header and end.
func (rf *rangeFuncs) loop(l *rfLoop) {
	tc := rf.tc
	rs := l.rs
	n := l.yield.Params().Len()
	vars := []ast.Expr{rs.Key, rs.Value}
	var params, assign []string
	for i := 0; i < n; i++ {
		t, ok := tc.typeString(l.yield.Params().At(i).Type())
		if !ok {
			return
		}
		name := "_"
		if i < 2 && vars[i] != nil {
			if id, ok := vars[i].(*ast.Ident); ok && rs.Tok == token.DEFINE {
				name = id.Name
			} else if !(ok && id.Name == "_") {
				name = l.id + "p" + strconv.Itoa(i)
				assign = append(assign, tc.c.src[tc.off(vars[i].Pos()):tc.off(vars[i].End())]+" = "+name)
			}
		}
		params = append(params, name+" "+t)
	}
	var edits []edit
	if ls, ok := tc.parents[rs].(*ast.LabeledStmt); ok {
		// The label's branches are all rewritten; a label on the block
		// that replaces the loop would be unused.
		edits = append(edits, tc.replace(ls.Label.Pos(), ls.Colon+1, ""))
	}
	// The iterator is called as written when it is a primary expression:
	// yaegi fails calling a parenthesized function ((seq)(f)) whose
	// argument defers.
	open, closeParen := "(", ")"
	switch ast.Unparen(rs.X).(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr, *ast.IndexExpr, *ast.IndexListExpr:
		if _, paren := rs.X.(*ast.ParenExpr); !paren {
			open, closeParen = "", ""
		}
	}
	head := "{ var " + l.id + " int; " + l.tempDef + open
	body := closeParen + "(func(" + strings.Join(params, ", ") + ") bool {"
	if len(assign) > 0 {
		body += " " + strings.Join(assign, "; ") + ";"
	}
	var tail strings.Builder
	tail.WriteString("; return true }); ") // the body may end without a newline
	for _, e := range l.exits {
		tail.WriteString("if " + l.id + " == " + strconv.Itoa(e.code) + " { " + e.reissue + " }; ")
	}
	if len(l.exits) == 0 {
		tail.WriteString("_ = " + l.id + "; ")
	}
	tail.WriteString("}")
	edits = append(edits,
		tc.replace(rs.For, rs.X.Pos(), head),
		tc.replace(rs.X.End(), rs.Body.Lbrace+1, body),
		tc.replace(rs.Body.Rbrace, rs.Body.Rbrace+1, tail.String()))
	rf.edits = append(rf.edits, edits...)
}
