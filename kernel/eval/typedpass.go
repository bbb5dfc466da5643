package eval

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// typedCtx is what a typed pass works on: one checked segment.
type typedCtx struct {
	c       *checked
	parents map[ast.Node]ast.Node
	nodes   []ast.Node // the segment's nodes, in source order
	seq     *int       // fresh-name counter of the session
	// pkgName is the name a package can be referred to by in the segment
	// (how the interpreter will see it), ok false when it cannot.
	pkgName func(path string) (string, bool)
	// overlay names the overlay package of an object ("" when none).
	overlay func(types.Object) string
}

func newTypedCtx(c *checked, seq *int, pkgName func(string) (string, bool)) *typedCtx {
	tc := &typedCtx{c: c, parents: map[ast.Node]ast.Node{}, seq: seq, pkgName: pkgName}
	var stack []ast.Node
	ast.Inspect(c.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if len(stack) > 0 {
			tc.parents[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		if c.inSeg(n.Pos()) && c.inSeg(n.End()) {
			tc.nodes = append(tc.nodes, n)
		}
		return true
	})
	return tc
}

func (tc *typedCtx) fresh(prefix string) string {
	*tc.seq++
	return prefix + strconv.Itoa(*tc.seq)
}

// typeString writes t as the segment can name it (the generic types of
// the interpreted packages by their interpreter names).
func (tc *typedCtx) typeString(t types.Type) (string, bool) {
	if !printable(t, true) {
		return "", false
	}
	ok := true
	qual := func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		n, found := tc.pkgName(p.Path())
		if !found {
			ok = false
		}
		return n
	}
	s := types.TypeString(t, qual)
	for _, r := range interpGenericTypes(t, qual) {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s, ok
}

// interpGenericTypes lists, for the generic types of interpreted packages
// t mentions, the replacement of "pkg.Name[" by "pkg.Name__pkg[".
func interpGenericTypes(t types.Type, qual types.Qualifier) [][2]string {
	var out [][2]string
	seen := map[types.Type]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch x := t.(type) {
		case *types.Named:
			o := x.Obj()
			if o.Pkg() != nil {
				if r := interpMember(o.Pkg().Path(), o.Name()); r != o.Name() {
					q := qual(o.Pkg())
					out = append(out, [2]string{q + "." + o.Name() + "[", q + "." + r + "["})
				}
			}
			for i := 0; i < x.TypeArgs().Len(); i++ {
				walk(x.TypeArgs().At(i))
			}
		case *types.Pointer:
			walk(x.Elem())
		case *types.Slice:
			walk(x.Elem())
		case *types.Array:
			walk(x.Elem())
		case *types.Map:
			walk(x.Key())
			walk(x.Elem())
		case *types.Chan:
			walk(x.Elem())
		case *types.Signature:
			for i := 0; i < x.Params().Len(); i++ {
				walk(x.Params().At(i).Type())
			}
			for i := 0; i < x.Results().Len(); i++ {
				walk(x.Results().At(i).Type())
			}
		case *types.Struct:
			for i := 0; i < x.NumFields(); i++ {
				walk(x.Field(i).Type())
			}
		}
	}
	walk(t)
	return out
}

func (tc *typedCtx) off(p token.Pos) int { return tc.c.off(p) }

// insertAt and replace build edits in segment offsets.
func (tc *typedCtx) insertAt(p token.Pos, text string) edit {
	o := tc.off(p)
	return edit{from: o, to: o, text: text}
}

func (tc *typedCtx) replace(from, to token.Pos, text string) edit {
	return edit{from: tc.off(from), to: tc.off(to), text: text}
}

// passOverlay refers to the generic members of mixed standard packages
// (sync.OnceValue) through their interpreted overlay package.
func passOverlay(tc *typedCtx) []edit {
	over := tc.overlay
	var out []edit
	for _, n := range tc.nodes {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			continue
		}
		if _, isPkg := tc.c.info.Uses[x].(*types.PkgName); !isPkg {
			continue
		}
		if op := over(tc.c.info.Uses[sel.Sel]); op != "" {
			out = append(out, tc.replace(x.Pos(), x.End(), op))
		}
	}
	return out
}

// passInstantiate writes the type arguments the checker inferred for each
// use of a generic function: yaegi cannot infer them.
func passInstantiate(tc *typedCtx) []edit {
	var out []edit
	ids := make([]*ast.Ident, 0, len(tc.c.info.Instances))
	for id := range tc.c.info.Instances {
		if tc.c.inSeg(id.Pos()) {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Pos() < ids[j].Pos() })
	for _, id := range ids {
		inst := tc.c.info.Instances[id]
		if _, isFunc := tc.c.info.Uses[id].(*types.Func); !isFunc || inst.TypeArgs.Len() == 0 {
			continue
		}
		var args []string
		ok := true
		for i := 0; i < inst.TypeArgs.Len(); i++ {
			s, printed := tc.typeString(inst.TypeArgs.At(i))
			if !printed {
				ok = false
				break
			}
			args = append(args, s)
		}
		if !ok {
			continue
		}
		list := "[" + strings.Join(args, ", ") + "]"
		// The expression naming the function: id or pkg.id.
		var fun ast.Node = id
		if sel, ok := tc.parents[id].(*ast.SelectorExpr); ok && sel.Sel == id {
			fun = sel
		}
		switch p := tc.parents[fun].(type) {
		case *ast.IndexExpr:
			if p.X == fun {
				out = append(out, tc.replace(p.Lbrack, p.Rbrack+1, list))
				continue
			}
		case *ast.IndexListExpr:
			if p.X == fun {
				out = append(out, tc.replace(p.Lbrack, p.Rbrack+1, list))
				continue
			}
		}
		out = append(out, tc.insertAt(fun.End(), list))
	}
	return out
}

// builtinPkg is the interpreted package holding min, max and clear.
const builtinPkg = "conclab_builtin"

// passBuiltins gives yaegi the builtins of Go 1.21 it lacks: min and max of
// constants are folded (they are constants in Go), other calls and clear go
// to package conclab_builtin with the type argument written.
func passBuiltins(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			continue
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok {
			continue
		}
		b, ok := tc.c.info.Uses[id].(*types.Builtin)
		if !ok {
			continue
		}
		switch b.Name() {
		case "min", "max":
			tv := tc.c.info.Types[call]
			if tv.Value != nil {
				if lit, ok := tc.constText(tv); ok {
					out = append(out, tc.replace(call.Pos(), call.End(), lit))
				}
				continue
			}
			t, ok := tc.typeString(tv.Type)
			if !ok || tv.Type == nil {
				continue
			}
			name := "Min"
			if b.Name() == "max" {
				name = "Max"
			}
			out = append(out, tc.replace(id.Pos(), id.End(), builtinPkg+"."+interpMember(builtinPkg, name)+"["+t+"]"))
		case "clear":
			out = append(out, tc.replace(id.Pos(), id.End(), builtinPkg+".Clear"))
		}
	}
	return out
}

// constText writes a constant value of a typed or untyped type as source.
func (tc *typedCtx) constText(tv types.TypeAndValue) (string, bool) {
	v := tv.Value
	var lit string
	switch v.Kind() {
	case constant.Int, constant.String, constant.Bool:
		lit = v.ExactString()
	case constant.Float:
		lit = v.ExactString()
		if num, den, frac := strings.Cut(lit, "/"); frac {
			lit = "(" + num + ".0 / " + den + ")"
		} else if !strings.ContainsAny(lit, ".eE") {
			lit += ".0"
		}
	default:
		return "", false
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return lit, true
	}
	t, ok := tc.typeString(tv.Type)
	if !ok {
		return "", false
	}
	return t + "(" + lit + ")", true
}

// passRangeInt rewrites a range over an integer (Go 1.22) into a
// three-clause loop on a counter of its own: yaegi cannot range over an
// integer. The range expression is evaluated once, and the loop variable
// has its type and is declared afresh in each iteration from the counter
// (so closures see their iteration's value, and the body's changes to it
// do not steer the loop, as in Go):
//
//	for i := range n { BODY }  ->  for _riN, _rnM := T(0), (n); _riN < _rnM; _riN++ { i := _riN; _ = i; BODY }
func passRangeInt(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		rs, ok := n.(*ast.RangeStmt)
		if !ok {
			continue
		}
		tv := tc.c.info.Types[rs.X]
		b, ok := under(tv.Type).(*types.Basic)
		if !ok || b.Info()&types.IsInteger == 0 {
			continue
		}
		zero := "0"
		if b.Info()&types.IsUntyped == 0 {
			t, ok := tc.typeString(tv.Type)
			if !ok {
				continue
			}
			zero = t + "(0)"
		}
		limit := tc.fresh("_rn")
		i := tc.fresh("_ri")
		out = append(out,
			tc.replace(rs.For, rs.X.Pos(), "for "+i+", "+limit+" := "+zero+", ("),
			tc.replace(rs.X.End(), rs.Body.Lbrace, "); "+i+" < "+limit+"; "+i+"++ "))
		if rs.Key == nil {
			continue
		}
		k := tc.c.src[tc.off(rs.Key.Pos()):tc.off(rs.Key.End())]
		switch {
		case rs.Tok == token.ASSIGN:
			out = append(out, tc.insertAt(rs.Body.Lbrace+1, " "+k+" = "+i+";"))
		case k != "_":
			out = append(out, tc.insertAt(rs.Body.Lbrace+1, " "+k+" := "+i+"; _ = "+k+";"))
		}
	}
	return out
}

func under(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// passGenericDefine declares the variables that a top-level definition
// gives the result of a generic function, before assigning them:
//
//	a := Id[string]("x")        ->  var a string; a = Id[string]("x")
//	var b = Map[int, string]    ->  var b func([]int, func(int) string) []string = Map[int, string]
//
// yaegi cannot define a session variable from a generic call at the top
// level of a cell ("constant definition loop", or its compiler's "nil type"
// for several results), but assigns one. Nested uses (f(Id[T](x))) need
// nothing.
func passGenericDefine(tc *typedCtx) []edit {
	var out []edit
	var top []ast.Node
	if tc.c.body != nil {
		for _, st := range tc.c.body.List {
			top = append(top, st)
		}
	} else {
		for _, d := range tc.c.file.Decls {
			if tc.c.inSeg(d.Pos()) {
				top = append(top, d)
			}
		}
	}
	for _, n := range top {
		switch st := n.(type) {
		case *ast.AssignStmt:
			if st.Tok != token.DEFINE || !tc.anyGeneric(st.Rhs) {
				continue
			}
			var decls []string
			ok := true
			for _, l := range st.Lhs {
				id, isID := l.(*ast.Ident)
				if !isID {
					ok = false
					break
				}
				obj := tc.c.info.Defs[id]
				if id.Name == "_" || obj == nil {
					continue
				}
				t, printed := tc.typeString(obj.Type())
				if !printed {
					ok = false
					break
				}
				decls = append(decls, "var "+id.Name+" "+t+"; ")
			}
			if !ok {
				continue
			}
			lhs := tc.c.src[tc.off(st.Pos()):tc.off(st.TokPos)]
			out = append(out, tc.replace(st.Pos(), st.TokPos+2, strings.Join(decls, "")+lhs+"="))
		case *ast.DeclStmt:
			out = append(out, tc.typeVarSpecs(st.Decl)...)
		case *ast.GenDecl:
			out = append(out, tc.typeVarSpecs(st)...)
		}
	}
	return out
}

// typeVarSpecs writes the type of `var x = generic...` specs.
func (tc *typedCtx) typeVarSpecs(d ast.Decl) []edit {
	g, ok := d.(*ast.GenDecl)
	if !ok || g.Tok != token.VAR {
		return nil
	}
	var out []edit
	for _, sp := range g.Specs {
		vs := sp.(*ast.ValueSpec)
		if vs.Type != nil || !tc.anyGeneric(vs.Values) {
			continue
		}
		var t string
		for i, id := range vs.Names {
			obj := tc.c.info.Defs[id]
			if obj == nil {
				t = ""
				break
			}
			s, ok := tc.typeString(obj.Type())
			if !ok || i > 0 && s != t {
				t = ""
				break
			}
			t = s
		}
		if t != "" {
			out = append(out, tc.insertAt(vs.Names[len(vs.Names)-1].End(), " "+t))
		}
	}
	return out
}

// anyGeneric reports whether one of es is a generic function or a call of
// one.
func (tc *typedCtx) anyGeneric(es []ast.Expr) bool {
	for _, e := range es {
		e = ast.Unparen(e)
		if call, ok := e.(*ast.CallExpr); ok && tc.genericCall(call) {
			return true
		}
		if tc.genericFunc(e) {
			return true
		}
	}
	return false
}

// genericCall reports whether call calls a generic function.
func (tc *typedCtx) genericCall(call *ast.CallExpr) bool {
	return tc.genericFunc(call.Fun)
}

// genericFunc reports whether e names an instance of a generic function.
func (tc *typedCtx) genericFunc(e ast.Expr) bool {
	fun := ast.Unparen(e)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return false
	}
	_, ok := tc.c.info.Instances[id]
	_, isFunc := tc.c.info.Uses[id].(*types.Func)
	return ok && isFunc
}

// errRewrite reports a construct a pass cannot rewrite.
type errRewrite struct {
	pos token.Pos
	msg string
}

func (e errRewrite) Error() string { return fmt.Sprintf("%s", e.msg) }

// passRecover unboxes the value recover() returns: yaegi hands the
// recovering function a panic's value inside a reflect.Value (recover() of
// panic(fmt.Errorf("x")) was a reflect.Value, not an error), so
//
//	recover()  ->  _conclabsink.Unbox(recover())
//
// (recover is still called by the deferred function itself).
func passRecover(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			continue
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok {
			continue
		}
		if b, ok := tc.c.info.Uses[id].(*types.Builtin); !ok || b.Name() != "recover" {
			continue
		}
		out = append(out, tc.insertAt(call.Pos(), sinkName+".Unbox("), tc.insertAt(call.End(), ")"))
	}
	return out
}

// passAssertError asserts error on interface values through the session:
// yaegi's x.(error) is false for a value of a cell type implementing error
// held in an interface{} (it sees the value's reflect type, which has no
// methods).
//
//	e, ok := x.(error)  ->  e, ok := _conclabAsError(x)
//	x.(error)           ->  _conclabMustError(x)
//
// A comma-ok assertion to another interface is made nil-safe: yaegi's
// panics when x is nil (Go's gives false).
//
//	s, ok := x.(fmt.Stringer)  ->  s, ok := func() (fmt.Stringer, bool) { if x == nil {...}; ... }()
func passAssertError(tc *typedCtx) []edit {
	var out []edit
	errType := types.Universe.Lookup("error").Type()
	for _, n := range tc.nodes {
		ta, ok := n.(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil {
			continue
		}
		t := tc.c.info.Types[ta.Type].Type
		if t != nil && types.IsInterface(t) && !types.Identical(t, errType) && isCommaOk(tc.parents[ta]) && pure(ta.X) {
			// A comma-ok assertion to another interface: nil-safe.
			out = append(out, tc.replace(ta.Pos(), ta.End(), tc.ifaceAssert(tc.text(ta.X), ta.Type)))
			continue
		}
		if t == nil || !types.Identical(t, errType) {
			continue
		}
		xt := tc.c.info.Types[ta.X].Type
		if xt == nil || !types.IsInterface(xt) || types.Identical(xt, errType) {
			continue
		}
		fn := "_conclabMustError"
		switch p := tc.parents[ta].(type) {
		case *ast.AssignStmt:
			if len(p.Lhs) == 2 && len(p.Rhs) == 1 {
				fn = "_conclabAsError"
			}
		case *ast.ValueSpec:
			if len(p.Names) == 2 && len(p.Values) == 1 {
				fn = "_conclabAsError"
			}
		}
		out = append(out, tc.replace(ta.Pos(), ta.X.Pos(), fn+"("), tc.replace(ta.X.End(), ta.End(), ")"))
	}
	return out
}

// isCommaOk reports whether p assigns a type assertion's two results.
func isCommaOk(p ast.Node) bool {
	switch p := p.(type) {
	case *ast.AssignStmt:
		return len(p.Lhs) == 2 && len(p.Rhs) == 1
	case *ast.ValueSpec:
		return len(p.Names) == 2 && len(p.Values) == 1
	}
	return false
}

// passEmbeddedIface spells out the embedded interface field a promoted
// method is called through: yaegi panics ("invalid interface value") on a
// method promoted from an interface embedded in a struct with other
// fields, but takes the explicit path.
//
//	s.Log("x")  ->  s.Logger.Log("x")
func passEmbeddedIface(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		s := tc.c.info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal || len(s.Index()) < 2 {
			continue
		}
		var path []string
		iface := false
		t := s.Recv()
		for _, i := range s.Index()[:len(s.Index())-1] {
			if p, ok := t.Underlying().(*types.Pointer); ok {
				t = p.Elem()
			}
			st, ok := t.Underlying().(*types.Struct)
			if !ok {
				path = nil
				break
			}
			f := st.Field(i)
			path = append(path, f.Name())
			t = f.Type()
			if types.IsInterface(t) {
				iface = true
			}
		}
		if !iface || len(path) == 0 {
			continue
		}
		out = append(out, tc.insertAt(sel.X.End(), "."+strings.Join(path, ".")))
	}
	return out
}

// passMethodExpr writes method expressions of cell types as function
// literals: yaegi calls (*T).M and T.M with the wrong arguments
// ("reflect: Call with too many input arguments").
//
//	(*Account).Balance  ->  func(_me0 *Account) int { return _me0.Balance() }
func passMethodExpr(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		s := tc.c.info.Selections[sel]
		if s == nil || s.Kind() != types.MethodExpr || !mentionsCell(s.Recv()) {
			continue
		}
		sig, ok := s.Type().(*types.Signature)
		if !ok || sig.Params().Len() == 0 {
			continue
		}
		var params, args []string
		ok = true
		for i := 0; i < sig.Params().Len(); i++ {
			t, printed := tc.typeString(sig.Params().At(i).Type())
			if !printed {
				ok = false
				break
			}
			name := tc.fresh("_me")
			if sig.Variadic() && i == sig.Params().Len()-1 {
				params = append(params, name+" ..."+strings.TrimPrefix(t, "[]"))
				args = append(args, name+"...")
			} else {
				params = append(params, name+" "+t)
				args = append(args, name)
			}
		}
		if !ok {
			continue
		}
		res, ok := tc.typeString(sig.Results())
		if !ok {
			continue
		}
		if sig.Results().Len() == 1 {
			res = strings.TrimSuffix(strings.TrimPrefix(res, "("), ")")
		}
		call := args[0] + "." + sel.Sel.Name + "(" + strings.Join(args[1:], ", ") + ")"
		body := call
		if sig.Results().Len() > 0 {
			body = "return " + call
		}
		out = append(out, tc.replace(sel.Pos(), sel.End(), "func("+strings.Join(params, ", ")+") "+res+" { "+body+" }"))
	}
	return out
}

// passTypeFor writes reflect.TypeFor[T]() as reflect.TypeOf((*T)(nil)).Elem():
// yaegi's compiler panics on a call of a generic function without
// arguments.
func passTypeFor(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			continue
		}
		ix, ok := call.Fun.(*ast.IndexExpr)
		if !ok {
			continue
		}
		sel, ok := ix.X.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		f, ok := tc.c.info.Uses[sel.Sel].(*types.Func)
		if !ok || f.Name() != "TypeFor" || f.Pkg() == nil || !strings.HasSuffix(f.Pkg().Path(), "reflect") {
			continue
		}
		pkg, ok := tc.pkgName("reflect")
		if !ok {
			continue
		}
		out = append(out,
			tc.replace(call.Pos(), ix.Index.Pos(), pkg+".TypeOf((*"),
			tc.replace(ix.Index.End(), call.End(), ")(nil)).Elem()"))
	}
	return out
}

// passSelectBreak turns a labeled break leaving a select into a goto to
// just after the labeled statement: yaegi's break of a label from inside a
// select breaks only the select (a `for { select { ... break loop } }`
// never ended).
//
//	loop: for { select { case <-done: break loop } }  ->  loop: for { select { case <-done: goto _sbN } }; _sbN: ;
func passSelectBreak(tc *typedCtx) []edit {
	var out []edit
	labels := map[ast.Node]string{}
	for _, n := range tc.nodes {
		br, ok := n.(*ast.BranchStmt)
		if !ok || br.Tok != token.BREAK || br.Label == nil {
			continue
		}
		var target ast.Node
		inSelect := false
		for p := tc.parents[br]; p != nil; p = tc.parents[p] {
			if _, ok := p.(*ast.SelectStmt); ok {
				inSelect = true
			}
			if ls, ok := p.(*ast.LabeledStmt); ok && ls.Label.Name == br.Label.Name {
				target = ls.Stmt
				break
			}
			if _, ok := p.(*ast.FuncLit); ok {
				break
			}
		}
		if target == nil || !inSelect {
			continue
		}
		if rs, ok := target.(*ast.RangeStmt); ok {
			if _, isFunc := under(tc.c.info.Types[rs.X].Type).(*types.Signature); isFunc {
				continue // rewritten by passRangeFunc
			}
		}
		l, ok := labels[target]
		if !ok {
			l = tc.fresh("_sb")
			labels[target] = l
			out = append(out, tc.insertAt(target.End(), "; "+l+": ;"))
		}
		out = append(out, tc.replace(br.Pos(), br.End(), "goto "+l))
	}
	return out
}

// passStdImport points imports of interpreted standard packages with paths
// of several elements at the name the interpreter knows them by:
//
//	import "crypto/hkdf"  ->  import hkdf "conclab_crypto_hkdf"
//
// (yaegi registers a package compiled from source under its name only).
func passStdImport(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		is, ok := n.(*ast.ImportSpec)
		if !ok {
			continue
		}
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			continue
		}
		ip := interpPath(p)
		if ip == p {
			continue
		}
		name := guessPkgName(p)
		if is.Name != nil {
			out = append(out, tc.replace(is.Path.Pos(), is.Path.End(), strconv.Quote(ip)))
			continue
		}
		out = append(out, tc.replace(is.Path.Pos(), is.Path.End(), name+" "+strconv.Quote(ip)))
	}
	return out
}

// passStdGeneric writes a cell's uses of the generic functions and types
// of the interpreted standard packages by the names the interpreter knows
// them by (slices.Collect -> slices.Collect__slices; see genericNames).
func passStdGeneric(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		id, ok := n.(*ast.Ident)
		if !ok {
			continue
		}
		obj := tc.c.info.Uses[id]
		if obj == nil || obj.Pkg() == nil {
			continue
		}
		if r := interpMember(obj.Pkg().Path(), obj.Name()); r != obj.Name() && obj.Parent() == obj.Pkg().Scope() {
			out = append(out, tc.replace(id.Pos(), id.End(), r))
			continue
		}
		if f, ok := obj.(*types.Func); ok {
			if recv := f.Type().(*types.Signature).Recv(); recv != nil {
				t := recv.Type()
				if p, ok := t.(*types.Pointer); ok {
					t = p.Elem()
				}
				if n, ok := t.(*types.Named); ok {
					if r := interpMethod(obj.Pkg().Path(), n.Obj().Name(), obj.Name()); r != obj.Name() {
						out = append(out, tc.replace(id.Pos(), id.End(), r))
					}
				}
			}
		}
	}
	return out
}
