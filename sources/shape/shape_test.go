package shape

import (
	"math"
	"strings"
	"testing"
)

func TestChecks(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		c    Check
		want bool
	}{
		{"int equals float", Equal("n", 3, 3.0), true},
		{"int64 equals int", Equal("n", int64(10), 10), true},
		{"different numbers", Equal("n", 3, 4), false},
		{"NaN equals nothing", Equal("n", nan, nan), false},
		{"strings", Equal("s", "/doPrint", "/doPrint"), true},
		{"string vs number", Equal("s", "3", 3), false},
		{"slices", Equal("xs", []string{"a"}, []string{"a"}), true},
		{"at least, equal", AtLeast("x", 2, 2), true},
		{"at least, below", AtLeast("x", 1.9, 2), false},
		{"at least, NaN", AtLeast("x", nan, 0), false},
		{"at most, NaN", AtMost("x", nan, 0), false},
		{"at most", AtMost("x", -1, 0), true},
		{"between, edges", Between("x", 1, 1, 1), true},
		{"between, above", Between("x", 1.2, 0.9, 1.1), false},
		{"between, NaN", Between("x", nan, 0, 1), false},
		{"less", Less("x", 1, 2), true},
		{"less, equal", Less("x", 2, 2), false},
		{"less, NaN", Less("x", nan, 2), false},
		{"true", True("x", true), true},
		{"false", True("x", false), false},
	}
	for _, tc := range tests {
		if tc.c.Holds != tc.want {
			t.Errorf("%s: Holds = %v, want %v (%+v)", tc.name, tc.c.Holds, tc.want, tc.c)
		}
	}
}

func TestShapeErrors(t *testing.T) {
	if err := Show("source 001"); err == nil || !strings.Contains(err.Error(), "no checks") {
		t.Errorf("no checks: err = %v", err)
	}
	err := Show("source 002", AtLeast("waves", 2, 3), True("ok", true), Equal("errors", 1, 0))
	if err == nil {
		t.Fatal("failed checks: no error")
	}
	for _, want := range []string{"source 002's shape did NOT hold", "waves (got 2, want ≥ 3)", "errors (got 1, want 0)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "ok (") {
		t.Errorf("error %q names a check that held", err)
	}
	if f := Frame("t", True("a", true), True("b", false)); f.Len() != 2 || f.Float("holds", 1) != 0 {
		t.Errorf("frame:\n%s", f)
	}
}
