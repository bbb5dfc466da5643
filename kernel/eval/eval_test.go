package eval_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/internal/symbols"
	"github.com/conclab/conclab/kernel/eval"
)

// labSymbols are the lab's packages, as cmd/conclab links them in.
var labSymbols = eval.Symbols{Packages: symbols.Symbols, Docs: symbols.Docs}

// syncBuf is a goroutine-safe buffer.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newSession(t testing.TB) (*eval.Session, *syncBuf, *syncBuf) {
	t.Helper()
	out, errb := &syncBuf{}, &syncBuf{}
	s, err := eval.New(eval.Options{Symbols: labSymbols, Stdout: out, Stderr: errb})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, out, errb
}

func mustEval(t testing.TB, s *eval.Session, code string) eval.Result {
	t.Helper()
	r, err := s.Eval(context.Background(), code)
	if err != nil {
		t.Fatalf("Eval(%q): %v", code, err)
	}
	return r
}

func TestStatePersistsAndValues(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	steps := []struct {
		code     string
		hasValue bool
		plain    string
	}{
		{"x := 40", false, ""},
		{"func add(a, b int) int { return a + b }\ntype P struct{ N int }", false, ""},
		{"import \"strings\"\ny := add(x, 2)\nstrings.Repeat(\"a\", 3)", true, "aaa"},
		{"y", true, "42"},
		{"fmt.Println(\"hello\")", false, ""},
		{"P{N: y}", true, "{42}"},
		{"func add(a, b int) int { return a * b }\nadd(6, 7)", true, "42"},
		{"var e error\ne", false, ""},
		{"// only a comment", false, ""},
	}
	for _, st := range steps {
		r := mustEval(t, s, st.code)
		if r.HasValue != st.hasValue {
			t.Fatalf("Eval(%q).HasValue = %v (%v); want %v", st.code, r.HasValue, r.Value, st.hasValue)
		}
		if st.plain != "" && r.Data.Data["text/plain"] != st.plain {
			t.Errorf("Eval(%q) text/plain = %q; want %q", st.code, r.Data.Data["text/plain"], st.plain)
		}
	}
	if got := out.String(); got != "hello\n" {
		t.Errorf("stdout = %q; want %q", got, "hello\n")
	}
}

func TestRenderInterpretedType(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, "type Badge string\nfunc (b Badge) HTML() string { return \"<b>\" + string(b) + \"</b>\" }")
	r := mustEval(t, s, "Badge(\"ok\")")
	if r.Data.Data["text/html"] != "<b>ok</b>" {
		t.Errorf("text/html = %v; want <b>ok</b> (bundle %v)", r.Data.Data["text/html"], r.Data.Data)
	}
	r = mustEval(t, s, "display.HTML(\"<i>x</i>\")")
	if r.Data.Data["text/html"] != "<i>x</i>" {
		t.Errorf("display.HTML without import: %v", r.Data.Data)
	}
	r = mustEval(t, s, "import \"github.com/conclab/conclab/display\"\ndisplay.HTML(\"<i>x</i>\")")
	if r.Data.Data["text/html"] != "<i>x</i>" {
		t.Errorf("display.HTML: %v", r.Data.Data)
	}
	r = mustEval(t, s, "import \"image\"\nimage.NewRGBA(image.Rect(0, 0, 2, 2))")
	if _, ok := r.Data.Data["image/png"].([]byte); !ok {
		t.Errorf("image: no PNG in %v", r.Data.Data)
	}
}

type rec struct {
	mu sync.Mutex
	ds []display.Data
}

func (r *rec) Display(d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ds = append(r.ds, d)
	return nil
}
func (r *rec) Update(id string, d display.Data) error { return r.Display(d) }
func (r *rec) Clear(bool) error                       { return nil }

func TestDisplayFunction(t *testing.T) {
	s, _, _ := newSession(t)
	r := &rec{}
	restore := display.SetPublisher(r)
	defer restore()
	mustEval(t, s, "Display(display.Markdown(\"* hi\"))\ndisplay.Display(display.HTML(\"<p>\"))")
	if len(r.ds) != 2 || r.ds[0].Data["text/markdown"] != "* hi" {
		t.Errorf("displayed %v", r.ds)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, "keep := 7")
	tests := []struct {
		code string
		name string
		line int
		msg  string
	}{
		{"a := 1\nb := undefinedThing", "CompileError", 2, ""},
		{"a := 1\nvar b int = \"s\"", "CompileError", 2, "cannot"},
		{"x := 1\n\npanic(\"boom\")", "panic", 3, "boom"},
		{"var m map[string]int\nm[\"a\"] = 1", "panic", 2, "nil map"},
		{"$ exit 3", "ShellError", 1, "exit status 3"},
		{"func (", "CompileError", 1, ""},
		{"x := 2\nos.Exit(3)", "panic", 2, "os.Exit(3)"},
	}
	for _, tt := range tests {
		_, err := s.Eval(context.Background(), tt.code)
		var e *eval.Error
		if !errors.As(err, &e) {
			t.Fatalf("Eval(%q) = %v; want *eval.Error", tt.code, err)
		}
		if e.Name != tt.name || e.Line != tt.line || !strings.Contains(e.Value, tt.msg) {
			t.Errorf("Eval(%q) = %+v; want name %s line %d containing %q", tt.code, e, tt.name, tt.line, tt.msg)
		}
	}
	if r := mustEval(t, s, "keep"); r.Value != 7 {
		t.Errorf("after errors keep = %v; want 7", r.Value)
	}
}

func TestStreamsWhileRunning(t *testing.T) {
	t.Parallel()
	s, out, errb := newSession(t)
	done := make(chan error, 1)
	go func() {
		_, err := s.Eval(context.Background(), "fmt.Println(\"first\")\nfmt.Fprintln(os.Stderr, \"warn\")\ntime.Sleep(2 * time.Second)\nfmt.Println(\"second\")")
		done <- err
	}()
	deadline := time.Now().Add(1500 * time.Millisecond)
	for !strings.Contains(out.String(), "first") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := out.String(); got != "first\n" {
		t.Fatalf("stdout while running = %q; want %q", got, "first\n")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "first\nsecond\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := errb.String(); got != "warn\n" {
		t.Errorf("stderr = %q", got)
	}
}

func TestInterrupt(t *testing.T) {
	t.Parallel()
	for _, code := range []string{
		"n := 0\nfor { n++ }",
		"time.Sleep(time.Hour)",
		"ch := make(chan int)\n<-ch",
	} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			testInterrupt(t, code)
		})
	}
}

// TestInterruptCellContext is not parallel: cell.Context() is the process's
// (one session per process, as the kernel and the runner have), so a
// session of a parallel test would see another's cell's context, cancelled
// at that cell's deadline.
func TestInterruptCellContext(t *testing.T) {
	testInterrupt(t, "import \"github.com/conclab/conclab/kernel/cell\"\n<-cell.Context().Done()")
}

func testInterrupt(t *testing.T, code string) {
	t.Helper()
	s, _, _ := newSession(t)
	mustEval(t, s, "state := 41")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := s.Eval(ctx, code)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Eval = %v; want deadline exceeded", err)
	}
	// 300 ms, the 250 ms grace and at most 700 ms of settling; the
	// rest is room for a loaded machine (a hang takes forever).
	if el := time.Since(t0); el > 3*time.Second {
		t.Errorf("interrupt took %v; want < 3s", el)
	}
	if r := mustEval(t, s, "state + 1"); r.Value != 42 {
		t.Errorf("after interrupt state+1 = %v", r.Value)
	}
}

func TestShellAndCd(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "marker.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	out := &syncBuf{}
	s, err := eval.New(eval.Options{Symbols: labSymbols, Stdout: out, Stderr: out, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	mustEval(t, s, "$ ls")
	if !strings.Contains(out.String(), "marker.txt") {
		t.Errorf("$ ls in Dir: %q", out.String())
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	mustEval(t, s, "%cd sub\n_, err := os.Stat(\"../marker.txt\")\nerr == nil")
	if s.Dir() != sub {
		t.Errorf("Dir() = %q; want %q", s.Dir(), sub)
	}
	s.Close()
	if now, _ := os.Getwd(); now != wd {
		t.Errorf("Close did not restore cwd: %q; want %q", now, wd)
	}
}

// The cell grammar is internal/cellsrc's: lines in a raw string are Go
// whatever they start with; any other line starting with % is a magic.
func TestCellGrammar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, code, want, wantErr string
	}{
		{"dollar line inside a raw string", "s := `\n$ not a command\n%not a magic\n`\ns", "\n$ not a command\n%not a magic\n", ""},
		{"unknown magic", "x := 1\n%timeit x", "", "MagicError: cell line 2: unknown magic %timeit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := newSession(t)
			r, err := s.Eval(context.Background(), tt.code)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("Eval = %v; want an error starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Data.Data["text/plain"]; got != tt.want {
				t.Errorf("value = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestCompleteInspectIsComplete(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, "type Point struct{ X, Y int }\nfunc (p Point) Norm() int { return p.X + p.Y }\npt := Point{1, 2}\nimport \"strings\"")
	mustEval(t, s, "pts := []Point{{1, 2}, {3, 4}}\nbyName := map[string]Point{\"a\": {5, 6}}\ntype Box struct{ Items []Point }\nbox := &Box{Items: pts}\ngrid := [][]Point{{{1, 1}}, {{2, 2}}}\nbyID := map[int64]Point{7: {7, 7}}")
	tests := []struct {
		code string
		want string
	}{
		{"strings.ToU", "ToUpper"},
		{"fmt.Sprin", "Sprintf"},
		{"pt.", "X"},
		{"pt.No", "Norm"},
		{"pri", "println"},
		{"display.HT", "HTML"},
		{"http.Ge", "Get"},       // net/http, usable without an import
		{"frame.Ne", "New"},      // a lab package, likewise
		{"pts[1].Y", "Y"},        // an element of a slice
		{"byName[\"a\"].X", "X"}, // a map entry
		{"box.Items[0].Y", "Y"},  // a field's element
		{"grid[1][0].X", "X"},    // two indexes
		{"byID[7].Y", "Y"},       // an int64-keyed map
	}
	for _, tt := range tests {
		m, start, end := s.Complete(tt.code, len(tt.code))
		found := false
		for _, x := range m {
			found = found || x == tt.want
		}
		if !found || end != len(tt.code) || start > end {
			t.Errorf("Complete(%q) = %v [%d,%d]; want to contain %q", tt.code, m, start, end, tt.want)
		}
	}
	if doc, ok := s.Inspect("strings.ToUpper", 10); !ok || !strings.Contains(doc, "ToUpper") {
		t.Errorf("Inspect strings.ToUpper = %q, %v", doc, ok)
	}
	if doc, ok := s.Inspect("strings.ToUpper", 10); !ok || !strings.Contains(doc, "func ToUpper(s string) string") {
		t.Errorf("Inspect strings.ToUpper signature = %q", doc)
	}
	mustEval(t, s, "var sb strings.Builder")
	if doc, ok := s.Inspect("sb.WriteString", 8); !ok || !strings.Contains(doc, "WriteString") {
		t.Errorf("Inspect sb.WriteString = %q, %v", doc, ok)
	}
	if doc, ok := s.Inspect("display.HTML", 10); !ok || !strings.Contains(doc, "func HTML(html string) Data") {
		t.Errorf("Inspect display.HTML = %q, %v", doc, ok)
	}
	if doc, ok := s.Inspect("pt", 1); !ok || !strings.Contains(doc, "pt") {
		t.Errorf("Inspect pt = %q, %v", doc, ok)
	}
	for code, want := range map[string]string{
		"x := 1":          "complete",
		"func f() {":      "incomplete",
		"x := (1 +":       "incomplete",
		"x := 1 +":        "incomplete",
		"}":               "invalid",
		"x := ]":          "invalid",
		"$ ls":            "complete",
		"s := `multi\nli": "incomplete",
	} {
		if got, _ := eval.IsComplete(code); got != want {
			t.Errorf("IsComplete(%q) = %s; want %s", code, got, want)
		}
	}
}

func TestNoGrowthOver1000Executes(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	s, _, _ := newSession(t)
	mustEval(t, s, "counter := 0")
	for i := 0; i < 50; i++ {
		mustEval(t, s, "counter++\nfmt.Print(\"\")\ncounter")
	}
	runtime.GC()
	g0 := runtime.NumGoroutine()
	f0 := openFDs(t)
	for i := 0; i < 1000; i++ {
		mustEval(t, s, "counter++\nfmt.Print(\"\")\ncounter")
	}
	time.Sleep(100 * time.Millisecond)
	runtime.GC()
	if g := runtime.NumGoroutine(); g > g0+2 {
		t.Errorf("goroutines %d -> %d after 1000 executes", g0, g)
	}
	if f := openFDs(t); f > f0+2 {
		t.Errorf("open fds %d -> %d after 1000 executes", f0, f)
	}
}

func openFDs(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

func TestInput(t *testing.T) {
	t.Parallel()
	var prompts []string
	lines := []string{"gopher", "42"}
	out := &syncBuf{}
	s, err := eval.New(eval.Options{Symbols: labSymbols, Stdout: out, Input: func(prompt string, password bool) (string, error) {
		prompts = append(prompts, prompt)
		l := lines[0]
		lines = lines[1:]
		return l, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := mustEval(t, s, "import \"bufio\"\nname, _ := bufio.NewReader(os.Stdin).ReadString('\\n')\nvar n int\nfmt.Scan(&n)\nstrings.TrimSpace(name) + fmt.Sprint(n+1)")
	if r.Value != "gopher43" || len(prompts) != 2 {
		t.Errorf("value %v after prompts %q; want gopher43 after 2 prompts", r.Value, prompts)
	}
}

func TestCaptureProcessOutput(t *testing.T) {
	// Not parallel: redirects the process-wide os.Stdout.
	out := &syncBuf{}
	orig := os.Stdout
	s, err := eval.New(eval.Options{Symbols: labSymbols, Stdout: out, Stderr: out, CaptureProcessOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	mustEval(t, s, "import \"github.com/conclab/conclab/bench/frame\"\nfmt.Print(frame.FormatNumber(1.5))")
	// Compiled code printing to os.Stdout is captured too.
	os.Stdout.WriteString("|compiled")
	s.Close()
	if os.Stdout != orig {
		t.Error("Close did not restore os.Stdout")
	}
	if got := out.String(); !strings.Contains(got, "|compiled") {
		t.Errorf("captured %q; want compiled output", got)
	}
}

func TestGoroutinePanicDoesNotKillProcess(t *testing.T) {
	t.Parallel()
	s, _, errb := newSession(t)
	// close(done) runs before the guard recovers, so the cell may end
	// first (ok) or see the panic (an error): either way the process lives.
	_, _ = s.Eval(context.Background(), "done := make(chan bool)\ngo func() {\n\tdefer close(done)\n\tvar m map[int]int\n\tm[1] = 1\n}()\n<-done")
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(errb.String(), "panic in goroutine") && time.Now().Before(deadline) {
		mustEval(t, s, "1") // flushes the cell streams
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(errb.String(), "panic in goroutine") {
		t.Errorf("stderr = %q; want the recovered goroutine panic reported", errb.String())
	}
	mustEval(t, s, "func spawn(c chan int) { go func(n int) { c <- n * 2 }(21) }\nc := make(chan int)\nspawn(c)")
	if r := mustEval(t, s, "<-c"); r.Value != 42 {
		t.Errorf("<-c = %v; want 42", r.Value)
	}
	// A named function started with go: arguments are evaluated at the go
	// statement, and a panic is recovered too.
	mustEval(t, s, "func send(c chan int, n int) { c <- n }\nfunc boom(d chan bool) { defer close(d); panic(\"named\") }\nn := 1\ngo send(c, n)\nn = 2")
	if r := mustEval(t, s, "<-c"); r.Value != 1 {
		t.Errorf("go send(c, n) sent %v; want 1 (argument evaluated at the go statement)", r.Value)
	}
	_, _ = s.Eval(context.Background(), "d := make(chan bool)\ngo boom(d)\n<-d") // ok or the panic, as above
	// An untyped constant argument to a non-default type still works (falls
	// back to the unguarded statement).
	mustEval(t, s, "func half(c chan float64, x float64) { c <- x / 2 }\nfc := make(chan float64)\ngo half(fc, 3)")
	if r := mustEval(t, s, "<-fc"); r.Value != 1.5 {
		t.Errorf("<-fc = %v; want 1.5", r.Value)
	}
	deadline = time.Now().Add(2 * time.Second)
	for strings.Count(errb.String(), "panic in goroutine") < 2 && time.Now().Before(deadline) {
		mustEval(t, s, "1")
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(errb.String(), "named") {
		t.Errorf("stderr = %q; want the named goroutine's panic reported", errb.String())
	}
}

func TestOutputCompleteWhenEvalReturns(t *testing.T) {
	t.Parallel()
	s, out, errb := newSession(t)
	for round := 0; round < 20; round++ {
		mustEval(t, s, "for i := 0; i < 500; i++ { fmt.Println(i) }\nfmt.Fprint(os.Stderr, \"e\")")
		if got := strings.Count(out.String(), "\n"); got != 500*(round+1) {
			t.Fatalf("round %d: %d lines when Eval returned; want %d", round, got, 500*(round+1))
		}
		if got := len(errb.String()); got != round+1 {
			t.Fatalf("round %d: stderr %d bytes; want %d", round, got, round+1)
		}
	}
	// More than a pipe buffer in one write.
	mustEval(t, s, "fmt.Print(strings.Repeat(\"x\", 1<<20))")
	if got := strings.Count(out.String(), "x"); got != 1<<20 {
		t.Errorf("big write: %d bytes forwarded; want %d", got, 1<<20)
	}
}

func TestRedefinition(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	steps := []struct{ code, want string }{
		{"x := 1", ""},
		{"x := \"s\"\nx", "s"},
		{"func f() int { return 1 }", ""},
		{"func f() string { return \"two\" }\nf()", "two"},
		{"type P struct{ A int }\nfunc (p P) Get() int { return p.A }\nold := P{A: 7}", ""},
		{"type P struct{ B string }\nP{B: \"b\"}", "{b}"},
		{"old.Get()", "7"},
		{"func (p P) Hi() string { return \"hi \" + p.B }\nP{B: \"x\"}.Hi()", "hi x"},
	}
	for _, st := range steps {
		r := mustEval(t, s, st.code)
		if st.want != "" && r.Data.Data["text/plain"] != st.want {
			t.Errorf("Eval(%q) = %v; want %s", st.code, r.Data.Data["text/plain"], st.want)
		}
	}
}

func TestRangeOverInt(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	steps := []struct{ code, want string }{
		{"sum := 0\nfor i := range 10 { sum += i }\nsum", "45"},
		{"n := 4\nfor i := range n { fmt.Print(i) }", ""},
		{"func tri(n int) int { t := 0; for i := range n + 1 { t += i }; return t }\ntri(4)", "10"},
		{"c := 0\nfor range 3 { c++ }\nc", "3"},
		{"xs := []string{\"a\", \"b\"}\nfor i := range len(xs) { fmt.Print(xs[i]) }", ""},
		{"for i := range xs { fmt.Print(i) }", ""},
	}
	for _, st := range steps {
		r := mustEval(t, s, st.code)
		if st.want != "" && r.Data.Data["text/plain"] != st.want {
			t.Errorf("Eval(%q) = %v; want %s", st.code, r.Data.Data["text/plain"], st.want)
		}
	}
	if got := out.String(); got != "0123ab01" {
		t.Errorf("stdout = %q; want 0123ab01", got)
	}
}

// A goroutine that panics while its cell runs fails the cell, as the
// program would have; one that panics after its cell ended is reported on
// stderr and fails nothing.
func TestGoroutinePanicFailsItsCell(t *testing.T) {
	t.Parallel()
	s, _, errb := newSession(t)
	_, err := s.Eval(context.Background(), "import \"time\"\ngo func() {\n\tvar m map[int]int\n\tm[1] = 1\n}()\ntime.Sleep(time.Second)\nfmt.Println(\"cell went on\")")
	var ee *eval.Error
	if !errors.As(err, &ee) || ee.Name != "panic" || !strings.Contains(ee.Value, "nil map") || !strings.Contains(ee.Value, "goroutine") {
		t.Fatalf("err = %v; want a panic error naming the goroutine's nil map", err)
	}
	if r := mustEval(t, s, "1 + 1"); r.Value != 2 {
		t.Errorf("next cell = %v; want 2 (the earlier goroutine panic does not carry over)", r.Value)
	}
	// A method started with go (a selector, kept as is by the rewrite).
	mustEval(t, s, "type boomer struct{ msg string }\nfunc (b *boomer) Boom() { panic(b.msg) }")
	_, err = s.Eval(context.Background(), "bm := &boomer{msg: \"method boom\"}\ngo bm.Boom()\ntime.Sleep(time.Second)")
	if !errors.As(err, &ee) || !strings.Contains(ee.Value, "method boom") {
		t.Errorf("go bm.Boom(): err = %v; want the method's panic", err)
	}
	mustEval(t, s, "late := make(chan bool)\ngo func() {\n\t<-late\n\tpanic(\"late one\")\n}()")
	mustEval(t, s, "close(late)\ntime.Sleep(10 * time.Millisecond)")
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(errb.String(), "late one") && time.Now().Before(deadline) {
		mustEval(t, s, "time.Sleep(10 * time.Millisecond)")
	}
	if !strings.Contains(errb.String(), "late one") {
		t.Errorf("stderr = %q; want the late goroutine's panic reported", errb.String())
	}
}

// What an interrupt does to work earlier cells left running (docs/kernel.md,
// "Known limits"): a server whose handler the compiled net/http calls keeps
// serving — also a handler made by a cell function (its frame outlives the
// interrupt) — and so does a lab server (compiled code). A cell that ends
// on its own when asked (time.Sleep, cell.Context()) stops nothing else: a
// goroutine an earlier cell left looping keeps running. A cell that does
// not (an interpreted endless loop) is stopped by yaegi, which stops
// whatever interpreted code runs at that moment; afterwards interpreted
// code runs normally again. Not parallel: cell.Context() is the process's.
func TestInterruptAndEarlierCells(t *testing.T) {
	s, _, _ := newSession(t)
	mustEval(t, s, `import (
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/strategy"
)
var ticks atomic.Int64
go func() {
	for {
		ticks.Add(1)
		time.Sleep(5 * time.Millisecond)
	}
}()
func made(reply string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, reply) }
}
mux := http.NewServeMux()
mux.HandleFunc("/cell", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("cell handler")) })
mux.Handle("/made", made("made handler"))
ln, lerr := net.Listen("tcp", "127.0.0.1:0")
if lerr != nil {
	panic(lerr)
}
srv := &http.Server{Handler: mux}
go srv.Serve(ln)
lab, perr := bench.Preset("goroutines")
if perr != nil {
	panic(perr)
}
labSrv, nerr := lab.Start(context.Background(), bench.Steps(bench.Sleep(time.Millisecond)), strategy.StartOptions{})
if nerr != nil {
	panic(nerr)
}`)
	t.Cleanup(func() { _, _ = s.Eval(context.Background(), "srv.Close()\nlabSrv.Close()") })
	get := func(expr string) string {
		t.Helper()
		r := mustEval(t, s, expr)
		return fmt.Sprint(r.Value)
	}
	url, labURL := get(`"http://" + ln.Addr().String()`), get("labSrv.URL()")
	serving := func(when string) {
		t.Helper()
		for _, c := range []struct{ url, body string }{{url + "/cell", "cell handler"}, {url + "/made", "made handler"}, {labURL + "/work", ""}} {
			resp, err := http.Get(c.url)
			if err != nil {
				t.Fatalf("GET %s %s: %v", c.url, when, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || (c.body != "" && string(body) != c.body) {
				t.Errorf("GET %s %s: %s %q; want 200 %q", c.url, when, resp.Status, body, c.body)
			}
		}
	}
	ticking := func(when string) {
		t.Helper()
		before := get("ticks.Load()")
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if get("ticks.Load()") != before {
				return
			}
		}
		t.Errorf("the earlier cell's goroutine does not tick %s", when)
	}
	serving("before the interrupts")
	ticking("before the interrupts")

	for _, code := range []string{"time.Sleep(time.Hour)", "<-cell.Context().Done()"} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		if _, err := s.Eval(ctx, code); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("interrupted cell %q: err = %v", code, err)
		}
		cancel()
		serving("after interrupting " + code)
		ticking("after interrupting " + code)
	}

	// An endless interpreted loop: yaegi stops it (and the ticker if it
	// ran just then); the handlers, the handler made by a function, and a
	// restarted ticker work afterwards.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if _, err := s.Eval(ctx, "n := 0\nfor {\n\tn++\n}"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("interrupted loop: err = %v", err)
	}
	if el := time.Since(t0); el > 3*time.Second {
		t.Errorf("interrupting an endless loop took %v; want < 3s", el)
	}
	serving("after interrupting an endless loop")
	mustEval(t, s, "go func() {\n\tfor {\n\t\tticks.Add(1)\n\t\ttime.Sleep(5 * time.Millisecond)\n\t}\n}()")
	ticking("restarted after the loop's interrupt")
}

// go statements evaluate their function's receiver and arguments at the go
// statement, also in a loop (yaegi shares one loop variable between
// iterations), and a method of a compiled type can be started with go.
func TestGoStatementEvaluatesAtGo(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, "import (\"sync\"; \"time\")\ntype ctr struct{ mu sync.Mutex; n int }\nfunc (c *ctr) Inc(wg *sync.WaitGroup, by int) { defer wg.Done(); c.mu.Lock(); c.n += by; c.mu.Unlock() }")
	r := mustEval(t, s, `cs := []*ctr{{}, {}, {}}
var wg sync.WaitGroup
for i, c := range cs {
	wg.Add(1)
	go c.Inc(&wg, i+1)
}
wg.Wait()
fmt.Sprint(cs[0].n, cs[1].n, cs[2].n)`)
	if r.Value != "1 2 3" {
		t.Errorf("counters = %v; want 1 2 3 (each goroutine on its own element)", r.Value)
	}
	r = mustEval(t, s, `var tm *time.Timer
done := make(chan bool)
tm = time.AfterFunc(time.Hour, func() {})
go tm.Stop()
go func() { done <- true }()
<-done`)
	if r.Value != true {
		t.Errorf("<-done = %v", r.Value)
	}
}

// Shift-Tab between a call's parentheses shows the function being called.
func TestInspectInsideCall(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	tests := []struct {
		code   string
		cursor int // -1: end of code
		want   string
		found  bool
	}{
		{"strings.ToUpper(", -1, "func ToUpper(s string) string", true},
		{"strings.ToUpper(  ", -1, "func ToUpper(s string) string", true},
		{"strings.Repeat(\"a\", ", -1, "func Repeat(s string, count int) string", true},
		{"strings.Repeat(\"(\", ", -1, "func Repeat(s string, count int) string", true},
		{"strings.Repeat(strings.ToUpper(\"x\"), ", -1, "func Repeat(s string, count int) string", true},
		{"strings.Repeat(strings.ToUpper(", -1, "func ToUpper(s string) string", true},
		{"x := 1 // strings.ToUpper(\n", -1, "", false},
		{"(", -1, "", false},
		{"", -1, "", false},
	}
	for _, tt := range tests {
		cur := tt.cursor
		if cur < 0 {
			cur = len([]rune(tt.code))
		}
		doc, ok := s.Inspect(tt.code, cur)
		if ok != tt.found || !strings.Contains(doc, tt.want) {
			t.Errorf("Inspect(%q, %d) = %q, %v; want found=%v containing %q", tt.code, cur, doc, ok, tt.found, tt.want)
		}
	}
}

// testing/synctest works where the bubble's goroutines wait in time.Sleep,
// timers or compiled code: the fake clock advances, synctest.Wait returns,
// and context.Background() in the bubble is Go's (the cell's context,
// cancelled from outside, would close a channel of the bubble).
func TestSynctest(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, `import "testing/synctest"
synctest.Test(&testing.T{}, func(t *testing.T) {
	start := time.Now()
	done := false
	go func() {
		time.Sleep(time.Minute)
		done = true
	}()
	synctest.Wait()
	fmt.Println(done, time.Since(start))
	time.Sleep(2 * time.Minute)
	synctest.Wait()
	fmt.Println(done, time.Since(start))
	time.AfterFunc(time.Hour, func() { fmt.Println("timer at", time.Since(start)) })
	time.Sleep(2 * time.Hour)
	fmt.Println(context.Background())
})`)
	if got, want := out.String(), "false 0s\ntrue 2m0s\ntimer at 1h2m0s\ncontext.Background\n"; got != want {
		t.Errorf("synctest cell printed %q; want %q", got, want)
	}
}
