package eval

import (
	"regexp"
	"strings"
	"testing"
)

func TestRewriteTupleAssign(t *testing.T) {
	t.Parallel()
	tmp := regexp.MustCompile(`_tup\d+`)
	for _, tc := range []struct {
		src  string
		decl bool
		want string
	}{
		{`a, b = "z", strings.ToUpper("x")`, false, `_tup := strings.ToUpper("x"); a, b = "z", _tup`},
		{`a, b = b, a`, false, `a, b = b, a`},           // no call: as is
		{`a, b := "z", f()`, false, `a, b := "z", f()`}, // a definition works
		{`a, b = f()`, false, `a, b = f()`},             // one multi-value call works
		{`x = f()`, false, `x = f()`},                   // not a tuple
		{`t.A, t.B = g(1), h(2)`, false, `_tup := g(1); _tup := h(2); t.A, t.B = _tup, _tup`},
		{"if x {\n\ta, b = 1, f()\n}", false, "if x {\n\t_tup := f(); a, b = 1, _tup\n}"},
		{"func k() (int, int) {\n\tc, d := 1, 2\n\tc, d = 3, f()\n\treturn c, d\n}", true, "func k() (int, int) {\n\tc, d := 1, 2\n\t_tup := f(); c, d = 3, _tup\n\treturn c, d\n}"},
		{`a, b = func() int { return f() }, 2`, false, `a, b = func() int { return f() }, 2`}, // a literal calls nothing
		{"for i, j = 0, f(); i < j; i++ {\n}", false, "for i, j = 0, f(); i < j; i++ {\n}"},   // headers stay
		{`a, b = (`, false, `a, b = (`},                        // does not parse
		{`cal, err = nil, nil`, false, `cal = nil; err = nil`}, // yaegi panics on untyped nils in a tuple
		{`x, err = f(), nil`, false, `_tup := f(); x = _tup; err = nil`},
		{`a, b, c = nil, b, a`, false, `b, c = b, a; a = nil`},
		{`a, b = func() {}, nil`, false, `a, b = func() {}, nil`}, // a literal: as is
	} {
		got := tmp.ReplaceAllString(rewriteTupleAssign(tc.src, tc.decl), "_tup")
		if got != tc.want {
			t.Errorf("rewriteTupleAssign(%q) = %q; want %q", tc.src, got, tc.want)
		}
		if strings.Count(got, "\n") != strings.Count(tc.src, "\n") {
			t.Errorf("rewriteTupleAssign(%q) changed the line count", tc.src)
		}
	}
}
