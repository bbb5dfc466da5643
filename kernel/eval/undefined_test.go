package eval_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/conclab/conclab/kernel/eval"
)

// A name nothing declares is reported as Go reports it, "undefined: x" at
// the line of its first use, whatever yaegi makes of it (a nil pointer
// panic of its compiler, "constant definition loop" on another line, or
// "incomplete type x" after an earlier failure left a placeholder): a
// later cell run first after a restart names what is missing.
func TestUndefinedNames(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, "keep := 7\nimport \"strings\"")
	tests := []struct {
		code  string
		value string
		line  int
	}{
		// yaegi: "runtime error: invalid memory address or nil pointer dereference".
		{"x := res.Summary.Len()", "undefined: res", 1},
		{"var failed []string\nfor i := 0; i < res.Summary.Len(); i++ {\n\tfailed = append(failed, \"x\")\n}", "undefined: res", 2},
		// yaegi: "CFG post-order panic: incomplete type res" (the
		// placeholder the previous failure left behind).
		{"var failed []string\nfor i := 0; i < res.Summary.Len(); i++ {\n\tfailed = append(failed, \"x\")\n}", "undefined: res", 2},
		// yaegi: "constant definition loop" at line 4 (go-native's last cell).
		{"want := map[string]float64{\"a\": 1}\nvar failed []string\nfor i := 0; i < res.Summary.Len(); i++ {\n\t_ = want\n}\none := cpuFrame.Float(\"serial_burns\", 0)", "undefined: res (also undefined: cpuFrame)", 3},
		{"x := undefinedThing", "undefined: undefinedThing", 1},
		{"y := res.Len()", "undefined: res", 1},
		{"fmt.Println(undefinedThing)", "undefined: undefinedThing", 1},
		{"fmt.Println(keep, nope)", "undefined: nope", 1},
		{"a := 1\n\nb := a + c + d + e + f + g + h", "undefined: c (also undefined: d, e, f, g, and 1 more)", 3},
		{"import r \"strings\"\nr.Repeat(zz, 2)", "undefined: zz", 2},
		{"func F() int {\n\treturn missing + 1\n}", "undefined: missing", 2},
		{"type T struct{ A Missing }", "undefined: Missing", 1},
		{"strings.ToUpper(s1)", "undefined: s1", 1},
	}
	for _, tt := range tests {
		_, err := s.Eval(context.Background(), tt.code)
		var e *eval.Error
		if !errors.As(err, &e) {
			t.Fatalf("Eval(%q) = %v; want *eval.Error", tt.code, err)
		}
		if e.Name != "CompileError" || e.Value != tt.value || e.Line != tt.line {
			t.Errorf("Eval(%q) = %s %q at line %d; want CompileError %q at line %d", tt.code, e.Name, e.Value, e.Line, tt.value, tt.line)
		}
		if len(e.Traceback) == 0 || !strings.HasPrefix(e.Traceback[0], "cell line ") || !strings.Contains(e.Traceback[0], "undefined: ") {
			t.Errorf("Eval(%q): traceback %q; want it to start with the cell line of the first undefined name", tt.code, e.Traceback)
		}
	}
	// Other compile errors keep the interpreter's message.
	if _, err := s.Eval(context.Background(), "var b int = \"s\""); err == nil || strings.Contains(err.Error(), "undefined") {
		t.Errorf("a type mismatch: %v; want the interpreter's message", err)
	}
	// A failed cell declared nothing: once res exists, the same cells work.
	mustEval(t, s, "type summary struct{ n int }\nfunc (s summary) Len() int { return s.n }\ntype result struct{ Summary summary }\nres := result{summary{3}}")
	mustEval(t, s, "x := res.Summary.Len()")
	mustEval(t, s, "var failed []string\nfor i := 0; i < res.Summary.Len(); i++ {\n\tfailed = append(failed, \"x\")\n}")
	if r := mustEval(t, s, "len(failed) + x + keep"); r.Value != 13 {
		t.Errorf("len(failed) + x + keep = %v; want 13", r.Value)
	}
}
