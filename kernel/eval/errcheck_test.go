package eval_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/conclab/conclab/kernel/eval"
)

// evalErr runs code and returns its *eval.Error (failing the test on any
// other outcome).
func evalErr(t *testing.T, s *eval.Session, code string) *eval.Error {
	t.Helper()
	_, err := s.Eval(context.Background(), code)
	var ee *eval.Error
	if !errors.As(err, &ee) {
		t.Fatalf("Eval(%q) = %v, want an *eval.Error", code, err)
	}
	return ee
}

func TestErrorIdiom(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, `import "strconv"
type myErr struct{ code int }
func (e *myErr) Error() string { return "my error " + strconv.Itoa(e.code) }
func two(fail bool) (int, error) {
	if fail {
		return 0, errors.New("two failed")
	}
	return 2, nil
}
func three(fail bool) (int, string, error) {
	if fail {
		_, err := strconv.Atoi("x")
		return 0, "", fmt.Errorf("three: %w", err)
	}
	return 3, "three", nil
}
func one(fail bool) error {
	if fail {
		return &myErr{1}
	}
	return nil
}`)
	cases := []struct {
		name, code string
		ename      string // "" : the cell succeeds
		evalue     string
		line       int
		src        string // the traceback's line
		out        string // what the cell printed
	}{
		{name: "define ok", code: "x, err := two(false)\nfmt.Println(\"x\", x)", out: "x 2\n"},
		{name: "define fails", code: "fmt.Println(\"before\")\nx, err := two(true)\nfmt.Println(\"after\", x)",
			ename: "error", evalue: "two failed", line: 2, src: "x, err := two(true)", out: "before\n"},
		{name: "assign fails", code: "var e2 error\nerr = one(true) // comment\nfmt.Println(\"after\")",
			ename: "error", evalue: "my error 1", line: 2, src: "err = one(true) // comment"},
		{name: "three values, wrapped", code: "a, b, err := three(true)\nfmt.Println(a, b)",
			ename: "*strconv.NumError", evalue: `three: strconv.Atoi: parsing "x": invalid syntax`, line: 1, src: "a, b, err := three(true)"},
		{name: "linked package", code: "n, err := strconv.Atoi(\"4x\")\nfmt.Println(n)",
			ename: "*strconv.NumError", evalue: `strconv.Atoi: parsing "4x": invalid syntax`, line: 1, src: `n, err := strconv.Atoi("4x")`},
		{name: "checked by the cell", code: "x, err := two(true)\nif err != nil {\n\tfmt.Println(\"handled:\", err)\n}",
			out: "handled: two failed\n"},
		{name: "printed by the cell", code: "x, err := two(true)\nfmt.Println(x, err)", out: "0 two failed\n"},
		{name: "shown as the last value", code: "x, err := two(true)\nerr", out: ""},
		{name: "nested block untouched", code: "if true {\n\tvar x int\n\tvar err error\n\tx, err = two(true)\n\tfmt.Println(x, err)\n}",
			out: "0 two failed\n"},
		{name: "in a function untouched", code: "func tolerant() int {\n\tx, err := two(true)\n\t_ = err\n\treturn x\n}\nfmt.Println(tolerant())",
			out: "0\n"},
		{name: "not an error", code: "err := 5\nfmt.Println(err + 1)", out: "6\n"},
		{name: "second statement fails", code: "x, err := two(false)\ny, z, err := three(true)\nfmt.Println(x, y, z)",
			ename: "*strconv.NumError", evalue: `three: strconv.Atoi: parsing "x": invalid syntax`, line: 2, src: "y, z, err := three(true)"},
		{name: "final (value, error) ok", code: "two(false)"},
		{name: "final (value, error) fails", code: "fmt.Println(\"p\")\ntwo(true)",
			ename: "error", evalue: "two failed", line: 2, src: "two(true)", out: "p\n"},
		{name: "final linked (value, error) fails", code: "strconv.ParseBool(\"maybe\")",
			ename: "*strconv.NumError", evalue: `strconv.ParseBool: parsing "maybe": invalid syntax`, line: 1, src: `strconv.ParseBool("maybe")`},
		{name: "final linked error fails", code: "os.Chdir(\"/no/such/dir\")",
			ename: "*fs.PathError", evalue: "chdir /no/such/dir: no such file or directory", line: 1, src: `os.Chdir("/no/such/dir")`},
		{name: "panic with an error", code: "x := 1\npanic(fmt.Errorf(\"boom %d: %w\", x, &os.PathError{Op: \"open\", Path: \"p\", Err: os.ErrNotExist}))",
			ename: "*fs.PathError", evalue: "boom 1: open p: file does not exist", line: 2, src: "panic(fmt.Errorf(\"boom %d: %w\", x, &os.PathError{Op: \"open\", Path: \"p\", Err: os.ErrNotExist}))"},
		{name: "panic with a string", code: "panic(\"plain\")", ename: "panic", evalue: "plain", line: 1, src: `panic("plain")`},
	}
	for _, c := range cases {
		before := len(out.String())
		_, err := s.Eval(context.Background(), c.code)
		printed := out.String()[before:]
		if c.ename == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		} else {
			var ee *eval.Error
			if !errors.As(err, &ee) {
				t.Errorf("%s: error %v, want an *eval.Error", c.name, err)
				continue
			}
			if ee.Name != c.ename || ee.Value != c.evalue || ee.Line != c.line {
				t.Errorf("%s: got %s / %q / line %d, want %s / %q / line %d", c.name, ee.Name, ee.Value, ee.Line, c.ename, c.evalue, c.line)
			}
			tb := strings.Join(ee.Traceback, "\n")
			if len(ee.Traceback) != 2 || !strings.Contains(ee.Traceback[0], c.ename+": "+c.evalue) ||
				ee.Traceback[1] != "  at cell line "+strconv.Itoa(c.line)+": "+c.src {
				t.Errorf("%s: traceback %q", c.name, ee.Traceback)
			}
			if strings.Contains(tb, "goroutine") || strings.Contains(tb, "_conclab") || strings.Contains(tb, ".go:") {
				t.Errorf("%s: traceback shows internals: %q", c.name, tb)
			}
		}
		if c.out != "" || c.ename != "" {
			if printed != c.out {
				t.Errorf("%s: printed %q, want %q", c.name, printed, c.out)
			}
		}
	}
}

// The check must not upset re-running cells, in any order.
func TestErrorIdiomRerun(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, `func get(fail bool) (int, error) {
	if fail {
		return 0, errors.New("get failed")
	}
	return 7, nil
}`)
	ok := "v, err := get(false)\nfmt.Println(\"v\", v)"
	bad := "w, err := get(true)\nfmt.Println(\"w\", w)"
	for _, code := range []string{ok, bad, ok, bad, bad, ok} {
		before := len(out.String())
		_, err := s.Eval(context.Background(), code)
		printed := out.String()[before:]
		if code == ok {
			if err != nil || printed != "v 7\n" {
				t.Fatalf("ok cell: %v, printed %q", err, printed)
			}
			continue
		}
		ee := evalErr(t, s, "err = nil\n_, err = get(true)")
		if ee.Value != "get failed" {
			t.Fatalf("assign form: %v", ee)
		}
		var e2 *eval.Error
		if !errors.As(err, &e2) || e2.Value != "get failed" || e2.Line != 1 || printed != "" {
			t.Fatalf("bad cell: %v, printed %q", err, printed)
		}
	}
	// The session is fine afterwards.
	if r := mustEval(t, s, "v + 1"); r.Data.Data["text/plain"] != "8" {
		t.Fatalf("v afterwards: %v", r.Data.Data)
	}
}

// Without Symbols a session has the standard library only: no display
// package, no Display function; values still render by their methods.
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	s, err := eval.New(eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := mustEval(t, s, "type B string\nfunc (b B) HTML() string { return \"<b>\" + string(b) + \"</b>\" }\nB(strconv.Itoa(2))")
	if r.Data.Data["text/html"] != "<b>2</b>" {
		t.Errorf("bundle = %v", r.Data.Data)
	}
	for _, code := range []string{`display.Text("x")`, `Display(nil)`, `import "github.com/conclab/conclab/bench"`} {
		if _, err := s.Eval(context.Background(), code); err == nil {
			t.Errorf("Eval(%q) succeeded without the lab's symbols", code)
		}
	}
	if ps := s.Packages(); len(ps) == 0 || strings.Contains(strings.Join(ps, " "), "conclab") {
		t.Errorf("Packages() = %d paths, lab packages among them: %v", len(ps), strings.Contains(strings.Join(ps, " "), "conclab"))
	}
	ee := evalErr(t, s, "n, err := strconv.Atoi(\"z\")\nn")
	if ee.Name != "*strconv.NumError" {
		t.Errorf("error idiom without symbols: %v", ee)
	}
}
