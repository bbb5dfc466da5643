package eval

import (
	"reflect"
	"strings"
	"testing"
)

func TestRewriteCommaOk(t *testing.T) {
	t.Parallel()
	elem := func(ch string) (string, bool) { return "string", ch == "names" }
	tests := []struct {
		in   string
		want []piece
	}{
		{"n, ok := i.(int)", []piece{{src: "n := *new(int); ok := false; n, ok = i.(int)"}}},
		{"v, ok := m[\"k\"]", []piece{{src: "ok := false; v := m[\"k\"]; v, ok = m[\"k\"]"}}},
		// Operands with effects are evaluated once.
		{"v, ok := get()[key()]", []piece{{src: "_cokm0 := get(); _cokk0 := key(); ok := false; v := _cokm0[_cokk0]; v, ok = _cokm0[_cokk0]"}}},
		{"ch := make(chan int)\nx, ok := <-ch", []piece{{src: "ch := make(chan int)\nx := *new(int); ok := false; x, ok = <-ch"}}},
		{"s, ok := <-names", []piece{{src: "s := *new(string); ok := false; s, ok = <-names"}}},
		// Unknown element type: left as is.
		{"s, ok := <-other", []piece{{src: "s, ok := <-other"}}},
		// Names defined before are assigned, not defined again; _ is skipped.
		{"v, ok := m[a]\nw, ok := m[b]", []piece{{src: "ok := false; v := m[a]; v, ok = m[a]\nw := m[b]; w, ok = m[b]"}}},
		{"_, ok := m[a]", []piece{{src: "ok := false; _, ok = m[a]"}}},
		{"var a, b = m[k]", []piece{{src: "b := false; a := m[k]; a, b = m[k]"}}},
		// Compound statements become a declared function called at once.
		{"x := 1\nif v, ok := m[k]; ok { f(v) }\ny := 2", []piece{
			{src: "x := 1\n"},
			{src: "func _cokf0() { if v, ok := m[k]; ok { f(v) } }", decl: true, line: 1},
			{src: "_cokf0()", line: 1},
			{src: "\ny := 2", line: 1}}},
		{"func() { v, ok := m[k]; f(v, ok) }()", []piece{
			{src: "func _cokf0() { func() { v, ok := m[k]; f(v, ok) }() }", decl: true},
			{src: "_cokf0()"}}},
		// A call of a function literal, which yaegi would run again later.
		{"x := 1\nfunc() { f(x) }()", []piece{
			{src: "x := 1\n"},
			{src: "func _cokf0() { func() { f(x) }() }", decl: true, line: 1},
			{src: "_cokf0()", line: 1}}},
		// Untouched: no comma-ok, a plain assignment, three values, bad code.
		{"x := f(a, b)", []piece{{src: "x := f(a, b)"}}},
		{"v, ok = m[k]", []piece{{src: "v, ok = m[k]"}}},
		{"a, b, c := m[k]", []piece{{src: "a, b, c := m[k]"}}},
		{"v, ok := m[", []piece{{src: "v, ok := m["}}},
	}
	for _, tt := range tests {
		got := rewriteCommaOk(tt.in, elem)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("rewriteCommaOk(%q) =\n%#v; want\n%#v", tt.in, got, tt.want)
		}
		lines := 0
		for _, p := range got {
			lines = max(lines, p.line+strings.Count(p.src, "\n"))
		}
		if lines != strings.Count(tt.in, "\n") {
			t.Errorf("rewriteCommaOk(%q) spans %d lines; want %d", tt.in, lines, strings.Count(tt.in, "\n"))
		}
	}
}

type fakeImports map[string]string

func (f fakeImports) Bound(name string) (string, bool) { p, ok := f[name]; return p, ok }
func (f fakeImports) Unbind(name string)               { delete(f, name) }

func TestDedupeImports(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		unbound  []string
	}{
		{"import \"fmt\"", "", nil},
		{"import \"fmt\"\nfunc f() {}", "\nfunc f() {}", nil},
		{"import (\n\t\"fmt\"\n\t\"os\"\n)", "import (\"os\")\n\n\n", nil},
		{"import (\"net\"; \"net/http\")", "", nil},
		{"import f \"fmt\"", "import f \"fmt\"", nil},
		// A name bound to another path is unbound; the import stays.
		{"import r \"strings\"", "import r \"strings\"", []string{"r"}},
		{"import \"math/rand/v2\"", "", nil},
		{"import _ \"fmt\"", "import _ \"fmt\"", nil},
		{"import \"fmt", "import \"fmt", nil},
	}
	for _, tt := range tests {
		fx := fakeImports{"fmt": "fmt", "net": "net", "http": "net/http", "r": "math/rand", "rand": "math/rand/v2"}
		if got := dedupeImports(tt.in, fx, newLinked(Symbols{}).importName); got != tt.want {
			t.Errorf("dedupeImports(%q) = %q; want %q", tt.in, got, tt.want)
		}
		for _, n := range tt.unbound {
			if _, still := fx[n]; still {
				t.Errorf("dedupeImports(%q) did not unbind %s", tt.in, n)
			}
		}
	}
}

func TestHoistFuncLitCall(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, decl, call string }{
		{"func() { f() }()", "func _cokfh0() { f() }", "_cokfh0()"},
		{"func(a int) (int, error) {\n\treturn a, nil\n}(3)", "func _cokfh0(a int) (int, error) {\n\treturn a, nil\n}", "_cokfh0(3)"},
		{"(func() int { return 1 })()", "", ""},
		{"f()", "", ""},
		{"func() {", "", ""},
	}
	for _, tt := range tests {
		decl, call, ok := hoistFuncLitCall(tt.in, 0)
		if decl != tt.decl || call != tt.call || ok != (tt.decl != "") {
			t.Errorf("hoistFuncLitCall(%q) = %q, %q, %v; want %q, %q", tt.in, decl, call, ok, tt.decl, tt.call)
		}
	}
}
