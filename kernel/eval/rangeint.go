package eval

import (
	"go/ast"
	"go/token"
	"reflect"
	"sort"
	"strings"
)

// yaegi v0.16 cannot compile Go 1.22's range over an integer
// (`for i := range 10`): its compiler panics with "nil type". rewriteRangeInt
// turns the range statements whose operand is evidently an integer into the
// equivalent three-clause loop, the operand evaluated once:
//
//	for i := range n {   ->   for i, _crn0 := n-n, n; i < _crn0; i++ {
//	for range 10 {       ->   for _cri0, _crn0 := 0, 10; _cri0 < _crn0; _cri0++ {
//
// An operand is evidently an integer when it is an integer literal, a call of
// len or cap, a linked-in function returning int, a variable of the session
// holding an integer, an identifier declared in the segment as an integer
// (parameter, var or := of a literal or len), or arithmetic on those. Line
// numbers are unchanged. isIntVar reports whether a session global is an
// integer.
func rewriteRangeInt(src string, decl bool, isIntVar func(string) (reflect.Kind, bool), intFunc func(pkg, name string) bool) string {
	f, off, ok := parseSegment(src, decl)
	if !ok {
		return src
	}

	// Identifiers declared as integers anywhere in the segment (scopes are
	// approximated: a name declared as an integer somewhere counts).
	intNames := map[string]string{} // name -> type name ("" for untyped int)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if id, ok := n.Type.(*ast.Ident); ok && isIntType(id.Name) {
				for _, nm := range n.Names {
					intNames[nm.Name] = id.Name
				}
			}
		case *ast.ValueSpec:
			if id, ok := n.Type.(*ast.Ident); ok && isIntType(id.Name) {
				for _, nm := range n.Names {
					intNames[nm.Name] = id.Name
				}
			} else if n.Type == nil {
				for i, nm := range n.Names {
					if i < len(n.Values) && isIntLiteral(n.Values[i]) {
						intNames[nm.Name] = "int"
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && isIntLiteral(n.Rhs[i]) {
						intNames[id.Name] = "int"
					}
				}
			}
		}
		return true
	})
	var isInt func(e ast.Expr) bool
	isInt = func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.BasicLit:
			return e.Kind == token.INT
		case *ast.ParenExpr:
			return isInt(e.X)
		case *ast.BinaryExpr:
			switch e.Op {
			case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.SHL, token.SHR, token.AND, token.OR, token.XOR:
				return isInt(e.X) || isInt(e.Y)
			}
		case *ast.Ident:
			if _, ok := intNames[e.Name]; ok {
				return true
			}
			if k, ok := isIntVar(e.Name); ok {
				return k >= reflect.Int && k <= reflect.Uintptr
			}
		case *ast.CallExpr:
			switch fn := e.Fun.(type) {
			case *ast.Ident:
				return fn.Name == "len" || fn.Name == "cap" || isIntType(fn.Name)
			case *ast.SelectorExpr:
				if pkg, ok := fn.X.(*ast.Ident); ok {
					return intFunc(pkg.Name, fn.Sel.Name)
				}
			}
		}
		return false
	}
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		r, ok := node.(*ast.RangeStmt)
		if !ok || r.Value != nil || r.Tok == token.ASSIGN || !isInt(r.X) {
			return true
		}
		x := src[off(r.X.Pos()):off(r.X.End())]
		lim := "_crn" + itoa(n)
		key := "_cri" + itoa(n)
		if id, ok := r.Key.(*ast.Ident); ok && id.Name != "_" {
			key = id.Name
		}
		zero := "0"
		if id, ok := r.X.(*ast.Ident); ok {
			zero = "(" + id.Name + " - " + id.Name + ")" // the operand's integer type
		} else if isIntLiteral(r.X) {
			zero = "0"
		} else if c, ok := r.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && isIntType(id.Name) && id.Name != "int" {
				zero = id.Name + "(0)"
			}
		}
		header := " " + key + ", " + lim + " := " + zero + ", " + x + "; " + key + " < " + lim + "; " + key + "++ "
		// Keep the header's line count.
		if nl := strings.Count(src[off(r.For)+3:off(r.Body.Lbrace)], "\n") - strings.Count(header, "\n"); nl > 0 {
			header += strings.Repeat("\n", nl)
		}
		edits = append(edits, edit{off(r.For) + 3, off(r.Body.Lbrace), header})
		n++
		return true
	})
	if len(edits) == 0 {
		return src
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	for _, e := range edits {
		if e.from < 0 || e.to > len(src) || e.from > e.to {
			return src
		}
		src = src[:e.from] + e.text + src[e.to:]
	}
	return src
}

func isIntType(name string) bool {
	switch name {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte", "rune":
		return true
	}
	return false
}

func isIntLiteral(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok {
			return id.Name == "len" || id.Name == "cap"
		}
	case *ast.ParenExpr:
		return isIntLiteral(e.X)
	}
	return false
}
