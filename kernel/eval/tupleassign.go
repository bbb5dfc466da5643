package eval

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strings"
	"sync/atomic"
)

// yaegi v0.16 miscompiles a tuple assignment with "=" whose right-hand side
// has a function call: `a, b = "z", strings.ToUpper("x")` assigns b and
// silently leaves a as it was (at the top level, on struct fields and in
// function bodies alike), while the same with only constants, or with ":=",
// works. rewriteTupleAssign hoists every right-hand operand that holds a
// call into a temporary defined just before the assignment, on the same
// line, so the assignment itself has no call:
//
//	a, b = "z", strings.ToUpper("x")  ->  _tup3_1 := strings.ToUpper("x"); a, b = "z", _tup3_1
//
// The Go spec evaluates calls in lexical left-to-right order and leaves
// the order of plain operands relative to them unspecified, so hoisting
// keeps the meaning. Only assignments that are statements of a block (or a
// case clause) are rewritten, not those in an if/for/switch header. A
// source that does not parse comes back as is.
func rewriteTupleAssign(src string, decl bool) string {
	if !strings.Contains(src, ",") || (!strings.Contains(src, "(") && !strings.Contains(src, "nil")) {
		return src
	}
	f, off, ok := parseSegment(src, decl)
	if !ok {
		return src
	}
	// An edit replaces src[start:end] by text (an insertion when start
	// == end). Edits do not overlap.
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	visit := func(list []ast.Stmt) {
		for _, st := range list {
			as, ok := st.(*ast.AssignStmt)
			if !ok || as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) {
				continue
			}
			if text, ok := splitNils(as, src, off); ok {
				edits = append(edits, edit{off(as.Pos()), off(as.End()), text})
				continue
			}
			var pre strings.Builder
			for _, r := range as.Rhs {
				if !hasCall(r) {
					continue
				}
				name := fmt.Sprintf("_tup%d", tupleSeq.Add(1))
				fmt.Fprintf(&pre, "%s := %s; ", name, src[off(r.Pos()):off(r.End())])
				edits = append(edits, edit{off(r.Pos()), off(r.End()), name})
			}
			if pre.Len() > 0 {
				edits = append(edits, edit{off(as.Pos()), off(as.Pos()), pre.String()})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch b := n.(type) {
		case *ast.BlockStmt:
			visit(b.List)
		case *ast.CaseClause:
			visit(b.Body)
		case *ast.CommClause:
			visit(b.Body)
		}
		return true
	})
	if len(edits) == 0 {
		return src
	}
	// Apply from the end: operands become temporaries, and the
	// temporaries' definitions go in before each statement.
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := src
	for _, e := range edits {
		out = out[:e.start] + e.text + out[e.end:]
	}
	return out
}

// splitNils rewrites a tuple assignment with an untyped nil operand, which
// yaegi v0.16 panics on ("reflect: New(nil)": `cal, err = nil, nil`): the
// nil pairs become single assignments after the rest, which keeps its
// calls hoisted as above —
//
//	x, err = f(), nil  ->  _tup4 := f(); x = _tup4; err = nil
//
// All operands are evaluated before any is assigned, and a nil reads
// nothing, so assigning the nils last keeps the meaning. It reports false
// when no operand is nil, or when one holds a function literal (whose body
// is rewritten on its own).
func splitNils(as *ast.AssignStmt, src string, off func(token.Pos) int) (string, bool) {
	isNil := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == "nil" }
	nils := 0
	for _, r := range as.Rhs {
		if isNil(r) {
			nils++
		}
		lit := false
		ast.Inspect(r, func(n ast.Node) bool { _, ok := n.(*ast.FuncLit); lit = lit || ok; return !lit })
		if lit {
			return "", false
		}
	}
	if nils == 0 {
		return "", false
	}
	text := func(e ast.Node) string { return src[off(e.Pos()):off(e.End())] }
	var pre, lhs, rhs, after []string
	for i, r := range as.Rhs {
		switch {
		case isNil(r):
			after = append(after, text(as.Lhs[i])+" = nil")
			continue
		case hasCall(r):
			name := fmt.Sprintf("_tup%d", tupleSeq.Add(1))
			pre = append(pre, name+" := "+text(r))
			rhs = append(rhs, name)
		default:
			rhs = append(rhs, text(r))
		}
		lhs = append(lhs, text(as.Lhs[i]))
	}
	var parts []string
	parts = append(parts, pre...)
	if len(lhs) > 0 {
		parts = append(parts, strings.Join(lhs, ", ")+" = "+strings.Join(rhs, ", "))
	}
	parts = append(parts, after...)
	return strings.Join(parts, "; "), true
}

// tupleSeq numbers the temporaries of rewriteTupleAssign, session-wide
// unique so a re-run cell never redefines an earlier one's.
var tupleSeq atomic.Int64

// hasCall reports whether e holds a call (a conversion looks the same and
// is hoisted too, harmlessly). Function literals' bodies are not looked
// into: defining one calls nothing.
func hasCall(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			found = true
		}
		return !found
	})
	return found
}
