package eval

import (
	"errors"
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Run-time errors as Go words them (interpreter limit): yaegi indexes and
// slices through reflect, whose panics say "reflect: slice index out of
// range" where Go says "runtime error: index out of range [5] with length
// 3". The bounds pass checks indexes and slice bounds the way Go does
// before the interpreter uses them:
//
//	s[i]      ->  s[_conclabsink.Index(i, len(s))]
//	s[lo:hi]  ->  s[_conclabsink.Slice(lo, hi, cap(s), true):hi]
//
// for slices, strings and arrays indexed by a value that is not constant,
// when s (and hi) can be evaluated twice; an index that is the key of a
// range over the same s is in range and left alone. Other panics of the
// interpreter are translated where they are observed (recover, a cell's
// error): a nil pointer dereference, and yaegi's position in front of an
// interface conversion.

// passBounds inserts the checks (see above).
func passBounds(tc *typedCtx) []edit {
	var out []edit
	for _, n := range tc.nodes {
		switch e := n.(type) {
		case *ast.IndexExpr:
			if !tc.indexable(e.X) || tc.c.info.Types[e.Index].Value != nil || !pureBound(e.X) {
				continue
			}
			if _, isType := tc.c.info.Types[e.Index].Type.(*types.TypeParam); isType {
				continue
			}
			if tc.rangeKey(e) {
				continue
			}
			x := tc.text(e.X)
			out = append(out,
				tc.insertAt(e.Index.Pos(), sinkName+".Index("),
				tc.insertAt(e.Index.End(), ", len("+x+"))"))
		case *ast.SliceExpr:
			if e.Slice3 || !tc.indexable(e.X) || !pureBound(e.X) || (e.High != nil && !pureBound(e.High)) {
				continue
			}
			constant := func(x ast.Expr) bool { return x == nil || tc.c.info.Types[x].Value != nil }
			if constant(e.Low) && constant(e.High) {
				continue
			}
			x := tc.text(e.X)
			hi := "len(" + x + ")"
			if e.High != nil {
				hi = tc.text(e.High)
			}
			max, isCap := "len("+x+")", "false"
			if _, isSlice := under(tc.c.info.Types[e.X].Type).(*types.Slice); isSlice {
				max, isCap = "cap("+x+")", "true"
			}
			tail := ", " + hi + ", " + max + ", " + isCap + ")"
			if e.Low == nil {
				out = append(out, tc.insertAt(e.Lbrack+1, sinkName+".Slice(0"+tail))
			} else {
				out = append(out, tc.insertAt(e.Low.Pos(), sinkName+".Slice("), tc.insertAt(e.Low.End(), tail))
			}
		}
	}
	return out
}

func (tc *typedCtx) text(n ast.Node) string { return tc.c.src[tc.off(n.Pos()):tc.off(n.End())] }

// indexable reports whether x is a slice, string or array (not a map, not
// a type parameter).
func (tc *typedCtx) indexable(x ast.Expr) bool {
	t := tc.c.info.Types[x].Type
	if t == nil {
		return false
	}
	if _, isParam := t.(*types.TypeParam); isParam {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Slice, *types.Array:
		return true
	case *types.Basic:
		return u.Info()&types.IsString != 0
	}
	return false
}

// rangeKey reports whether e indexes the collection a range statement
// enclosing it ranges over, with that statement's key.
func (tc *typedCtx) rangeKey(e *ast.IndexExpr) bool {
	id, ok := e.Index.(*ast.Ident)
	if !ok {
		return false
	}
	obj := tc.c.info.Uses[id]
	for p := tc.parents[e]; p != nil; p = tc.parents[p] {
		rs, ok := p.(*ast.RangeStmt)
		if !ok {
			continue
		}
		if k, ok := rs.Key.(*ast.Ident); ok && tc.c.info.Defs[k] == obj && obj != nil && tc.text(rs.X) == tc.text(e.X) {
			return true
		}
	}
	return false
}

// pureExpr reports whether e can be evaluated twice without effects: an
// identifier, a selector chain, a literal, len/cap of those, arithmetic.
func pureBound(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.SelectorExpr:
		return pureBound(x.X)
	case *ast.ParenExpr:
		return pureBound(x.X)
	case *ast.BinaryExpr:
		return pureBound(x.X) && pureBound(x.Y)
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") && len(x.Args) == 1 {
			return pureBound(x.Args[0])
		}
	}
	return false
}

// boundsError is Go's run-time error for an index or slice bound out of
// range.
type boundsError struct{ msg string }

func (e *boundsError) Error() string { return "runtime error: " + e.msg }
func (e *boundsError) RuntimeError() {}

// checkIndex is _conclabsink.Index: i if 0 <= i < n, else Go's panic.
func checkIndex(i any, n int) int {
	x, signed := intOf(i)
	if x < 0 && signed {
		panic(&boundsError{fmt.Sprintf("index out of range [%d]", x)})
	}
	if x < 0 || x >= int64(n) {
		panic(&boundsError{fmt.Sprintf("index out of range [%s] with length %d", uintStr(i, x), n)})
	}
	return int(x)
}

// checkSlice is _conclabsink.Slice: lo if lo <= hi <= max, else Go's panic
// (max is the capacity of a slice, the length of a string or array).
func checkSlice(lo, hi any, max int, capacity bool) int {
	l, ls := intOf(lo)
	h, hs := intOf(hi)
	what := "length"
	if capacity {
		what = "capacity"
	}
	switch {
	case h < 0 && hs:
		panic(&boundsError{fmt.Sprintf("slice bounds out of range [:%d]", h)})
	case h < 0 || h > int64(max):
		panic(&boundsError{fmt.Sprintf("slice bounds out of range [:%s] with %s %d", uintStr(hi, h), what, max)})
	case l < 0 && ls:
		panic(&boundsError{fmt.Sprintf("slice bounds out of range [%d:]", l)})
	case l < 0 || l > h:
		panic(&boundsError{fmt.Sprintf("slice bounds out of range [%s:%d]", uintStr(lo, l), h)})
	}
	return int(l)
}

func intOf(v any) (int64, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int64(rv.Uint()), false
	}
	return 0, true
}

func uintStr(v any, x int64) string {
	if rv := reflect.ValueOf(v); rv.CanUint() {
		return strconv.FormatUint(rv.Uint(), 10)
	}
	return strconv.FormatInt(x, 10)
}

var yaegiPosRE = regexp.MustCompile(`^\d+:\d+: (interface conversion: .*)$`)

// translatePanic turns a panic value of the interpreter's into the one Go
// would have raised (see above); other values are returned as they are.
func translatePanic(v any) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "reflect: ") && strings.Contains(x, "index out of range") {
			return &boundsError{"index out of range"}
		}
		if strings.HasPrefix(x, "reflect.Value.Slice") && strings.Contains(x, "out of bounds") {
			return &boundsError{"slice bounds out of range"}
		}
	case *reflect.ValueError:
		if x.Kind == reflect.Invalid {
			return &runtimeError{"runtime error: invalid memory address or nil pointer dereference"}
		}
	case error:
		if m := yaegiPosRE.FindStringSubmatch(x.Error()); m != nil {
			return &runtimeError{m[1]}
		}
		var ve *reflect.ValueError
		if errors.As(x, &ve) && ve.Kind == reflect.Invalid {
			return &runtimeError{"runtime error: invalid memory address or nil pointer dereference"}
		}
	}
	return v
}
