package eval

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// passLoopVar gives each iteration of a loop its own variables (Go 1.22's
// semantics): yaegi shares one variable between all iterations, so a
// closure or a goroutine started in the loop, or a pointer taken to the
// variable, sees the last value. Only loops whose variables are captured
// that way are changed; the header's variables get fresh names and the
// body declares the loop's names from them (yaegi mistakes a same-name
// redeclaration at the top level of a cell for the loop variable):
//
//	for i, v := range s { BODY }     ->  for _lvA, _lvB := range s { i, v := _lvA, _lvB; BODY }
//	for i := 0; i < n; i++ { BODY }  ->  for _lvA := 0; _lvA < n; _lvA++ { i := _lvA; BODY; _lvA = i }
//
// The three-clause form copies the variable back at the end of the body
// and before each continue when the body assigns it, so that its changes
// (i++) still steer the loop. Ranges over integers and functions get fresh
// variables from their own rewrites (passRangeInt, passRangeFunc).
func passLoopVar(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		switch s := n.(type) {
		case *ast.RangeStmt:
			if s.Tok != token.DEFINE {
				continue
			}
			switch t := under(tc.c.info.Types[s.X].Type).(type) {
			case *types.Signature:
				continue
			case *types.Basic:
				if t.Info()&types.IsInteger != 0 {
					continue
				}
			}
			var vars []*ast.Ident
			captured := false
			for _, e := range []ast.Expr{s.Key, s.Value} {
				id, ok := e.(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				vars = append(vars, id)
				captured = captured || tc.captured(tc.c.info.Defs[id], s.Body)
			}
			if !captured {
				continue
			}
			var names, hidden []string
			for _, id := range vars {
				h := tc.fresh("_lv")
				out = append(out, tc.replace(id.Pos(), id.End(), h))
				names = append(names, id.Name)
				hidden = append(hidden, h)
			}
			out = append(out, tc.insertAt(s.Body.Lbrace+1, " "+strings.Join(names, ", ")+" := "+strings.Join(hidden, ", ")+";"))
		case *ast.ForStmt:
			init, ok := s.Init.(*ast.AssignStmt)
			if !ok || init.Tok != token.DEFINE {
				continue
			}
			var vars []*ast.Ident
			captured := false
			for _, e := range init.Lhs {
				if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
					vars = append(vars, id)
					captured = captured || tc.captured(tc.c.info.Defs[id], s.Body)
				}
			}
			if captured {
				out = append(out, tc.perIteration(s, vars)...)
			}
		}
	}
	return out
}

// perIteration makes the variables of a three-clause loop per iteration.
func (tc *typedCtx) perIteration(s *ast.ForStmt, vars []*ast.Ident) []edit {
	assigned := false
	renamed := map[types.Object]string{}
	var names, hidden []string
	for _, v := range vars {
		obj := tc.c.info.Defs[v]
		if tc.assigned(obj, s.Body) {
			assigned = true
		}
		h := tc.fresh("_lv")
		renamed[obj] = h
		names = append(names, v.Name)
		hidden = append(hidden, h)
	}
	l, h := strings.Join(names, ", "), strings.Join(hidden, ", ")
	var out []edit
	for _, part := range []ast.Node{s.Init, s.Cond, s.Post} {
		if part == nil {
			continue
		}
		ast.Inspect(part, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := tc.c.info.Defs[id]
			if obj == nil {
				obj = tc.c.info.Uses[id]
			}
			if r, ok := renamed[obj]; ok {
				out = append(out, tc.replace(id.Pos(), id.End(), r))
			}
			return true
		})
	}
	out = append(out, tc.insertAt(s.Body.Lbrace+1, " "+l+" := "+h+";"))
	if !assigned {
		return out
	}
	// The body's changes steer the loop: copied back at the end of the
	// body and before each continue of this loop.
	back := h + " = " + l
	out = append(out, tc.insertAt(s.Body.Rbrace, "; "+back+" "))
	ast.Inspect(s.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			if x.Tok == token.CONTINUE && tc.continueTarget(x) == s {
				out = append(out,
					tc.insertAt(x.Pos(), "{ "+back+"; "),
					tc.insertAt(x.End(), " }"))
			}
		}
		return true
	})
	return out
}

// continueTarget is the loop a continue statement continues.
func (tc *typedCtx) continueTarget(br *ast.BranchStmt) ast.Node {
	for p := tc.parents[br]; p != nil; p = tc.parents[p] {
		if br.Label != nil {
			if ls, ok := p.(*ast.LabeledStmt); ok && ls.Label.Name == br.Label.Name {
				return ls.Stmt
			}
			continue
		}
		switch p.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return p
		case *ast.FuncLit:
			return nil
		}
	}
	return nil
}

// captured reports whether obj is referred to by a function literal inside
// body, or has its address taken there (&v, a pointer method on v).
func (tc *typedCtx) captured(obj types.Object, body *ast.BlockStmt) bool {
	if obj == nil {
		return false
	}
	found := false
	var inLit int
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *ast.FuncLit:
			inLit++
			ast.Inspect(x.Body, visit)
			inLit--
			return false
		case *ast.Ident:
			if inLit > 0 && tc.c.info.Uses[x] == obj {
				found = true
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND && tc.rootIs(x.X, obj) {
				found = true
			}
		case *ast.SelectorExpr:
			if sel := tc.c.info.Selections[x]; sel != nil && sel.Kind() == types.MethodVal {
				if _, ptr := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr && tc.rootIs(x.X, obj) {
					if _, isPtr := under(tc.c.info.Types[x.X].Type).(*types.Pointer); !isPtr {
						found = true
					}
				}
			}
		}
		return true
	}
	ast.Inspect(body, visit)
	return found
}

// rootIs reports whether e is obj or a field or array element of it.
func (tc *typedCtx) rootIs(e ast.Expr, obj types.Object) bool {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return tc.c.info.Uses[x] == obj
		case *ast.SelectorExpr:
			if _, isPtr := under(tc.c.info.Types[x.X].Type).(*types.Pointer); isPtr {
				return false
			}
			e = x.X
		case *ast.IndexExpr:
			if _, isArr := under(tc.c.info.Types[x.X].Type).(*types.Array); !isArr {
				return false
			}
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return false
		}
	}
}

// assigned reports whether body assigns obj (=, op=, ++, --).
func (tc *typedCtx) assigned(obj types.Object, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				return true
			}
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok && tc.c.info.Uses[id] == obj {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := x.X.(*ast.Ident); ok && tc.c.info.Uses[id] == obj {
				found = true
			}
		}
		return !found
	})
	return found
}
