package eval

import (
	"go/ast"
	"go/types"
	"strings"
)

// passTypeSwitch writes a type switch with an interface case (case error,
// case fmt.Stringer) as a chain of type assertions: yaegi's type switch
// matches no interface case for a value of a compiled type
// (errors.New("e") is not an error there), and its compiler panics on
// `switch v := x.(type)` at the top level of a cell. The clauses' bodies
// stay where they are:
//
//	switch v := x.(type) {      switch { default: _ts1 := x; if _ts1 == nil && false {
//	case int:                   } else if v, ok := _ts1.(int); ok { _ = v
//	    A                           A
//	case error, fmt.Stringer:   } else if _conclabTypeIn(...) { v := _ts1; _ = v
//	    B                           B
//	default:                    } else { v := _ts1; _ = v
//	    C                           C
//	}                           } }
//
// An interface case is checked nil-safe (a comma-ok assertion of nil to an
// interface panics in yaegi), error through the session's check (which
// knows the cells' error types). break still leaves the switch. A switch
// whose default clause is not the last is left as written.
func passTypeSwitch(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		ts, ok := n.(*ast.TypeSwitchStmt)
		if !ok || ts.Body == nil {
			continue
		}
		var x ast.Expr
		bind := ""
		switch a := ts.Assign.(type) {
		case *ast.ExprStmt:
			if ta, ok := a.X.(*ast.TypeAssertExpr); ok {
				x = ta.X
			}
		case *ast.AssignStmt:
			if ta, ok := a.Rhs[0].(*ast.TypeAssertExpr); ok && len(a.Lhs) == 1 {
				x = ta.X
				bind = a.Lhs[0].(*ast.Ident).Name
			}
		}
		if x == nil || !tc.wantChain(ts, bind) {
			continue
		}
		v := tc.fresh("_ts")
		head := "switch "
		if ts.Init != nil {
			head += tc.text(ts.Init) + "; "
		}
		head += "{ default: " + v + " := " + tc.text(x) + "; if " + v + " == nil && false {"
		out = append(out, tc.replace(ts.Switch, ts.Body.Lbrace+1, head))
		for _, st := range ts.Body.List {
			cc := st.(*ast.CaseClause)
			var cond, binding string
			switch {
			case cc.List == nil: // default
				cond = "true"
				if bind != "" {
					binding = " " + bind + " := " + v + "; _ = " + bind
				}
			case len(cc.List) == 1 && bind != "" && !tc.isNil(cc.List[0]):
				t := cc.List[0]
				if types.IsInterface(tc.c.info.Types[t].Type) {
					cond = bind + ", _ok := " + tc.ifaceAssert(v, t) + "; _ok"
				} else {
					cond = bind + ", _ok := " + v + ".(" + tc.text(t) + "); _ok"
				}
				binding = " _ = " + bind
			default:
				var alts []string
				for _, t := range cc.List {
					alts = append(alts, tc.typeTest(v, t))
				}
				cond = strings.Join(alts, " || ")
				if bind != "" {
					binding = " " + bind + " := " + v + "; _ = " + bind
				}
			}
			out = append(out, tc.replace(cc.Case, cc.Colon+1, "} else if "+cond+" {"+binding))
		}
		out = append(out, tc.insertAt(ts.Body.Rbrace, "} "))
	}
	return out
}

// wantChain reports whether the type switch ts is rewritten: it has an
// interface case, or it binds a variable at the top level of the cell;
// and its default clause, if any, is the last.
func (tc *typedCtx) wantChain(ts *ast.TypeSwitchStmt, bind string) bool {
	iface := false
	for i, st := range ts.Body.List {
		cc, ok := st.(*ast.CaseClause)
		if !ok {
			return false
		}
		if cc.List == nil && i != len(ts.Body.List)-1 {
			return false
		}
		for _, t := range cc.List {
			if tv, ok := tc.c.info.Types[t]; !ok || tv.Type == nil {
				return false
			} else if !tc.isNil(t) && types.IsInterface(tv.Type) {
				iface = true
			}
		}
	}
	return iface || bind != "" && tc.parents[ts] == tc.c.body
}

func (tc *typedCtx) isNil(t ast.Expr) bool {
	id, ok := t.(*ast.Ident)
	return ok && id.Name == "nil" && tc.c.info.Types[t].IsNil()
}

// typeTest is a boolean expression: whether v holds a value of type t.
func (tc *typedCtx) typeTest(v string, t ast.Expr) string {
	if tc.isNil(t) {
		return v + " == nil"
	}
	if types.IsInterface(tc.c.info.Types[t].Type) {
		return "func() bool { _, ok := " + tc.ifaceAssert(v, t) + "; return ok }()"
	}
	return "func() bool { _, ok := " + v + ".(" + tc.text(t) + "); return ok }()"
}

// ifaceAssert is a nil-safe comma-ok assertion of x (the source of a pure
// expression, evaluated twice) to the interface type t.
func (tc *typedCtx) ifaceAssert(x string, t ast.Expr) string {
	if types.Identical(tc.c.info.Types[t].Type, types.Universe.Lookup("error").Type()) {
		return "_conclabAsError(" + x + ")"
	}
	tt := tc.text(t)
	return "func() (" + tt + ", bool) { if " + x + " == nil { var z " + tt + "; return z, false }; w, ok := " + x + ".(" + tt + "); return w, ok }()"
}

// pure reports whether e is a name or a selector of names: evaluating it
// twice is evaluating it once.
func pure(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return pure(e.X)
	}
	return false
}

// passSpreadVar slices a package variable spread into a variadic call:
// yaegi converts a compiled package's slice variable spread as is
// (bench.Presets(cpython.Endpoints000Print...)) to the element type and
// fails; a slice expression of it passes.
//
//	f(pkg.V...)  ->  f(pkg.V[:]...)
func passSpreadVar(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		call, ok := n.(*ast.CallExpr)
		if !ok || !call.Ellipsis.IsValid() || len(call.Args) == 0 {
			continue
		}
		last := ast.Unparen(call.Args[len(call.Args)-1])
		var id *ast.Ident
		switch e := last.(type) {
		case *ast.SelectorExpr:
			id = e.Sel
		case *ast.Ident:
			id = e
		}
		if id == nil {
			continue
		}
		v, ok := tc.c.info.Uses[id].(*types.Var)
		if !ok || v.Pkg() == nil || v.Pkg() == tc.c.pkg || v.IsField() || v.Parent() != v.Pkg().Scope() {
			continue
		}
		if _, isSlice := v.Type().Underlying().(*types.Slice); !isSlice {
			continue
		}
		out = append(out, tc.insertAt(last.End(), "[:]"))
	}
	return out
}

// passParamNames names the unnamed parameters of function literals and
// declarations `_`: yaegi mixes up the arguments of a function literal
// with unnamed parameters that uses a captured value
// (func(int, string) string { return srv.Addr } panicked "value of type
// int is not assignable to type string").
//
//	func(int, string) string {...}  ->  func(_ int, _ string) string {...}
func passParamNames(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		var ft *ast.FuncType
		switch f := n.(type) {
		case *ast.FuncLit:
			ft = f.Type
		case *ast.FuncDecl:
			if f.Body != nil {
				ft = f.Type
			}
		}
		if ft == nil || ft.Params == nil {
			continue
		}
		for _, p := range ft.Params.List {
			if len(p.Names) == 0 {
				out = append(out, tc.insertAt(p.Type.Pos(), "_ "))
			}
		}
	}
	return out
}
