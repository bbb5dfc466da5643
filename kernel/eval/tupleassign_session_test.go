package eval_test

import "testing"

// The cell-level behaviour: every target of a tuple assignment with calls
// is assigned, at the top level, on struct fields and in a function, also
// when the cell runs twice.
func TestTupleAssignInSession(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	for _, c := range []string{
		`import "strings"`,
		"a, b := \"a\", \"b\"\ntype T struct{ A, B string }\nvar tt T",
		"func f() (string, string) {\n\tc, d := \"c\", \"d\"\n\tc, d = \"y\", strings.ToUpper(\"w\")\n\treturn c, d\n}",
	} {
		mustEval(t, s, c)
	}
	for run := 0; run < 2; run++ {
		cell := "a, b = \"z\", strings.ToUpper(\"x\")\ntt.A, tt.B = strings.ToLower(\"Q\"), \"r\"\nc, d := f()\nfmt.Println(a, b, tt.A, tt.B, c, d)"
		before := len(out.String())
		mustEval(t, s, cell)
		if got := out.String()[before:]; got != "z X q r y W\n" {
			t.Errorf("run %d: got %q; want %q", run+1, got, "z X q r y W\n")
		}
	}
}

// TestTupleAssignNilsInSession: a tuple assignment of untyped nils to a
// pointer and an error, which yaegi alone panics on.
func TestTupleAssignNilsInSession(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, "type C struct{ N int }\nvar c = &C{1}\nvar err = fmt.Errorf(\"e\")")
	for run := 0; run < 2; run++ {
		before := len(out.String())
		mustEval(t, s, "c, err = nil, nil\nfmt.Println(c == nil, err == nil)\nc, err = &C{2}, nil\nfmt.Println(c.N, err == nil)")
		if got := out.String()[before:]; got != "true true\n2 true\n" {
			t.Errorf("run %d: got %q; want %q", run+1, got, "true true\n2 true\n")
		}
	}
}
