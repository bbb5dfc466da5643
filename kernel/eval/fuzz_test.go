package eval

import (
	"strings"
	"testing"
)

// FuzzSplitCell: cutting any cell into segments never panics, and the
// segments' Go text comes from the cell.
func FuzzSplitCell(f *testing.F) {
	for _, s := range []string{"for i := range 3 {\n}", "for range n {}", "x := 1\nx", "func f() {}\nf()\n$ ls\n%cd /", "go func() {}()", "type T struct{}\nfunc (T) M() {}\nT{}", "`", "{", "", "import (\"fmt\"; \"os\")\nv, ok := m[k]", "if v, ok := m[k]; ok {\n}\nx, ok := <-ch", "var a, b = m[k]\nfunc f() {}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		for _, seg := range splitCell(code) {
			if seg.kind != segShell && seg.kind != segMagic && seg.line < 1 {
				t.Fatalf("segment %+v has no line", seg)
			}
			if (seg.kind == segStmt || seg.kind == segDecl) && !strings.Contains(code, strings.TrimSpace(seg.src)) {
				t.Fatalf("segment %q not from cell %q", seg.src, code)
			}
		}
		IsComplete(code)
		guardGoroutines(code, false, nil, nil)
		str := func(string) (string, bool) { return "string", true }
		for _, p := range rewriteCommaOk(code, str) {
			if p.line < 0 || p.line+strings.Count(p.src, "\n") > strings.Count(code, "\n") {
				t.Fatalf("rewriteCommaOk(%q): piece %+v outside the cell's lines", code, p)
			}
		}
		for _, p := range declCommaOk(code, str) {
			if p.line < 0 || p.line+strings.Count(p.src, "\n") > strings.Count(code, "\n") {
				t.Fatalf("declCommaOk(%q): piece %+v outside the cell's lines", code, p)
			}
		}
		if out := dedupeImports(code, fakeImports{"fmt": "fmt", "r": "math/rand"}, newLinked(Symbols{}).importName); strings.Count(out, "\n") != strings.Count(code, "\n") {
			t.Fatalf("dedupeImports changed the line count of %q: %q", code, out)
		}
		guardGoroutines(code, true, nil, nil)
		for _, decl := range []bool{false, true} {
			if out := rewriteTupleAssign(code, decl); strings.Count(out, "\n") != strings.Count(code, "\n") {
				t.Fatalf("rewriteTupleAssign changed the line count of %q: %q", code, out)
			}
		}
		for _, part := range typesFirst(code) {
			if strings.Count(part, "\n") != strings.Count(code, "\n") {
				t.Fatalf("typesFirst changed the line count of %q: %q", code, part)
			}
		}
	})
}

func TestGuardGoroutines(t *testing.T) {
	t.Parallel()
	isPkg := func(name string) bool { return name == "http" || name == "fmt" }
	isConst := func(name string) bool { return name == "N" }
	g := func(v string) string { return guardFor(v) }
	tests := []struct{ in, want string }{
		{"go f(a, 3)", "{ _cgc0, _cg0, _cg1 := _conclabCell(), f, a; go func() { " + g("_cgc0") + "_cg0(_cg1, 3) }() }"},
		// A method call copies its receiver, not the method value.
		{"go s.serve(l)", "{ _cgc0, _cgr, _cg1 := _conclabCell(), s, l; go func() { " + g("_cgc0") + "_cgr.serve(_cg1) }() }"},
		{"go newSrv().Serve(ln)", "{ _cgc0, _cgr, _cg1 := _conclabCell(), newSrv(), ln; go func() { " + g("_cgc0") + "_cgr.Serve(_cg1) }() }"},
		// A package's function is called as is; arguments are copied, selectors too.
		{"go http.ListenAndServe(cfg.Addr, h)", "{ _cgc0, _cg1, _cg2 := _conclabCell(), cfg.Addr, h; go func() { " + g("_cgc0") + "http.ListenAndServe(_cg1, _cg2) }() }"},
		// Untyped nil, true/false and cell constants are passed as written.
		{"go http.ListenAndServe(\"127.0.0.1:0\", nil)", "{ _cgc0 := _conclabCell(); go func() { " + g("_cgc0") + "http.ListenAndServe(\"127.0.0.1:0\", nil) }() }"},
		{"go f(N, true, x)", "{ _cgc0, _cg0, _cg3 := _conclabCell(), f, x; go func() { " + g("_cgc0") + "_cg0(N, true, _cg3) }() }"},
		{"go f(xs...)", "{ _cgc0, _cg0, _cg1 := _conclabCell(), f, xs; go func() { " + g("_cgc0") + "_cg0(_cg1...) }() }"},
		{"go func() {\n\tx()\n}()", "{ _cgc0 := _conclabCell(); go func() {" + g("_cgc0") + "\n\tx()\n}() }"},
		// Nested: the inner statement reuses the outer one's cell number.
		{"go func() {go g()}()", "{ _cgc0 := _conclabCell(); go func() {" + g("_cgc0") +
			"{ _cgc11, _cg0 := _cgc0, g; go func() { " + g("_cgc11") + "_cg0() }() }}() }"},
		// Arguments on several lines: the line count is kept.
		{"go f(a,\n\tb)\nx()", "{ _cgc0, _cg0, _cg1, _cg2 := _conclabCell(), f, a, b; go func() { " + g("_cgc0") + "_cg0(_cg1, _cg2) }() }\n\nx()"},
		{"go close(ch)", "go close(ch)"},
		{"x := 1", "x := 1"},
		{"go f(", "go f("},
	}
	for _, tt := range tests {
		if got := guardGoroutines(tt.in, false, isPkg, isConst); got != tt.want {
			t.Errorf("guardGoroutines(%q) =\n%q; want\n%q", tt.in, got, tt.want)
		}
		if strings.Count(guardGoroutines(tt.in, false, isPkg, isConst), "\n") != strings.Count(tt.in, "\n") {
			t.Errorf("guardGoroutines(%q) changed the line count", tt.in)
		}
	}
}

// noImports reports nothing bound.
type noImports struct{}

func (noImports) bound(string) (string, bool) { return "", false }
func (noImports) unbind(string)               {}
