package eval_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/conclab/conclab/kernel/eval"
)

// A panic's line is a line of the cell that ran: when it comes from a
// function another cell declared, yaegi's innermost position is a line of
// that cell; the error then points at the statement calling it.
func TestPanicLine(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, "func deref(p *int) int {\n\treturn *p\n}\nfunc boom() {\n\tpanic(\"boom\")\n}")
	tests := []struct {
		code  string
		line  int
		trace string // in the traceback
	}{
		{"x := 1\ny := 2\nz := deref(nil)", 3, "  at cell line 3: z := deref(nil)"},
		{"a := 1\n\n\n\nboom()", 5, "  at cell line 5: boom()"},
		{"x := 1\n\npanic(\"here\")", 3, "  at cell line 3: panic(\"here\")"},
		{"func local() {\n\tpanic(\"local\")\n}\nlocal()", 4, "  raised in a function called there (line 2 of the cell"},
		{"var m map[string]int\nm[\"a\"] = 1", 2, "  at cell line 2: m[\"a\"] = 1"},
	}
	for _, tt := range tests {
		_, err := s.Eval(context.Background(), tt.code)
		var e *eval.Error
		if !errors.As(err, &e) || e.Name != "panic" {
			t.Fatalf("Eval(%q) = %v; want a panic", tt.code, err)
		}
		if e.Line != tt.line || !strings.Contains(strings.Join(e.Traceback, "\n"), tt.trace) {
			t.Errorf("Eval(%q): line %d, traceback %q; want line %d and %q", tt.code, e.Line, e.Traceback, tt.line, tt.trace)
		}
	}
}
