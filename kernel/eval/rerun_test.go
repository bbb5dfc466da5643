package eval_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conclab/conclab/kernel/eval"
)

// Re-running cells in any order works: imports, declarations, servers.
func TestRerunCells(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	cells := []struct{ code, want string }{
		{"import \"fmt\"\nfmt.Print(\"a;\")", "a;"},
		{"import \"fmt\"\nfmt.Print(\"a;\")", "a;"}, // the same cell again
		{"import (\n\t\"os\"\n\t\"strings\"\n)\nfmt.Print(strings.ToUpper(\"b;\"), os.Getpid() > 0, \";\")", "B;true;"},
		{"import \"os\"\nimport \"strings\"\nfmt.Print(strings.Repeat(\"c\", 2), \";\")", "cc;"},
		{"import f \"fmt\"\nf.Print(\"d;\")", "d;"},
		// A name bound to another path: the new import replaces it.
		{"import r \"strings\"\nfmt.Print(r.Repeat(\"e\", 2), \";\")", "ee;"},
		{"import r \"math/rand\"\nfmt.Print(r.Intn(1), \";\")", "0;"},
		{"const K = 2\nvar V = 3\ntype T struct{ A int }\nfunc F() int { return K * V }\nfmt.Print(F(), T{1}, \";\")", "6 {1};"},
		{"const K = 2\nvar V = 3\ntype T struct{ A int }\nfunc F() int { return K * V }\nfmt.Print(F(), T{1}, \";\")", "6 {1};"},
		{"import (\"net\"; \"net/http\")\nln, err := net.Listen(\"tcp\", \"127.0.0.1:0\")\nif err != nil { panic(err) }\ngo http.Serve(ln, nil)\nfmt.Print(\"srv;\")", "srv;"},
		{"import (\"net\"; \"net/http\")\nln, err := net.Listen(\"tcp\", \"127.0.0.1:0\")\nif err != nil { panic(err) }\ngo http.Serve(ln, nil)\nfmt.Print(\"srv;\")", "srv;"},
		{"go http.ListenAndServe(\"127.0.0.1:0\", nil)\nfmt.Print(\"las;\")", "las;"},
		{"go http.ListenAndServe(\"127.0.0.1:0\", nil)\nfmt.Print(\"las;\")", "las;"},
	}
	for _, c := range cells {
		before := len(out.String())
		mustEval(t, s, c.code)
		if got := out.String()[before:]; got != c.want {
			t.Errorf("cell %q printed %q; want %q", c.code, got, c.want)
		}
	}
}

// A fixed port already taken is a clear error naming the address, not a
// crash, also through log.Fatal.
func TestTakenPortIsClearError(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, "import (\"net\"; \"net/http\"; \"log\")\nln, _ := net.Listen(\"tcp\", \"127.0.0.1:0\")\naddr := ln.Addr().String()")
	for _, c := range []struct{ code, name string }{
		{"log.Fatal(http.ListenAndServe(addr, nil))", "log.Fatal"},
		{"log.Fatalf(\"serve: %v\", http.ListenAndServe(addr, nil))", "log.Fatal"},
		{"err := http.ListenAndServe(addr, nil)\nif err != nil { panic(err) }", "*net.OpError"},
		{"err := http.ListenAndServe(addr, nil)", "*net.OpError"},
	} {
		_, err := s.Eval(context.Background(), c.code)
		var ee *eval.Error
		if !errors.As(err, &ee) || ee.Name != c.name || !strings.Contains(ee.Value, "address already in use") {
			t.Errorf("Eval(%q) = %v; want a %s error saying the address is in use", c.code, err, c.name)
		}
	}
	mustEval(t, s, "ln.Close()")
}

// go f(args...) for every argument form; each goroutine is guarded.
func TestGoStatementArgumentForms(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, `import "sync"
const N = 3
type W struct{ n int }
func (w W) Put(ch chan int, k int) { ch <- w.n + k }
func put(ch chan int, v float64) { ch <- int(v) }
func putF(ch chan int, f func() int) { ch <- f() }
func putP(ch chan int, p *int) { if p == nil { ch <- -1 } else { ch <- *p } }
ch := make(chan int, 16)
w := W{10}`)
	cases := []struct{ code, want string }{
		{"go putP(ch, nil)", "-1"},
		{"go put(ch, N)", "3"},
		{"go put(ch, 2.5)", "2"},
		{"go putF(ch, func() int { return 7 })", "7"},
		{"go w.Put(ch, 1)", "11"},
		{"f := w.Put\ngo f(ch, 2)", "12"},
		{"go put(\n\tch,\n\t4,\n)", "4"},
		{"go func(k int) { ch <- k }(5)", "5"},
	}
	for _, c := range cases {
		r := mustEval(t, s, c.code+"\nfmt.Sprint(<-ch)")
		if r.Value != c.want {
			t.Errorf("%q: got %v; want %s", c.code, r.Value, c.want)
		}
	}
	// A goroutine's panic is still caught with untyped nil arguments.
	_, err := s.Eval(context.Background(), "func boom(p *int) { if p == nil { panic(\"boom nil\") } }\ndone := make(chan bool)\ngo boom(nil)\ntime.Sleep(200 * time.Millisecond)")
	var ee *eval.Error
	if !errors.As(err, &ee) || ee.Name != "panic" {
		t.Errorf("go boom(nil): err = %v; want the goroutine's panic", err)
	}
}

// Comma-ok forms at the top level of a cell, as inside a func; each runs
// once even when later cells run.
func TestCommaOkTopLevel(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, "m := map[string]int{\"k\": 1}\nvar i interface{} = 3\nch := make(chan int, 4)\nch <- 5\nch <- 6\nch <- 7")
	cases := []struct{ code, want string }{
		{"v, ok := m[\"k\"]\nfmt.Print(v, ok, \";\")", "1 true;"},
		{"v, ok := m[\"zz\"]\nfmt.Print(v, ok, \";\")", "0 false;"},
		{"var a, b = m[\"k\"]\nfmt.Print(a, b, \";\")", "1 true;"},
		{"n, ok := i.(int)\nfmt.Print(n, ok, \";\")", "3 true;"},
		{"str, ok := i.(string)\nfmt.Printf(\"%q %v;\", str, ok)", "\"\" false;"},
		{"x, ok := <-ch\nfmt.Print(x, ok, \";\")", "5 true;"},
		{"c2 := make(chan string, 1)\nc2 <- \"s\"\nsv, ok := <-c2\nfmt.Print(sv, ok, \";\")", "strue;"},
		{"if v, ok := m[\"k\"]; ok { fmt.Print(\"if\", v, \";\") }", "if1;"},
		{"for k := range m { v, ok := m[k]; fmt.Print(\"for\", v, ok, \";\") }", "for1 true;"},
		{"func() { v, ok := m[\"k\"]; fmt.Print(\"lit\", v, ok, \";\") }()", "lit1 true;"},
		{"switch n, ok := i.(int); { case ok: fmt.Print(\"sw\", n, \";\") }", "sw3;"},
		{"select { case x, ok := <-ch: fmt.Print(\"sel\", x, ok, \";\") }", "sel6 true;"},
		{"v, ok := m[\"k\"]\nw, ok := m[\"zz\"]\nfmt.Print(v, w, ok, \";\")", "1 0 false;"},
		{"_, ok := m[\"k\"]\nfmt.Print(ok, \";\")", "true;"},
		{"keys := []string{\"k\"}\nv, ok := m[keys[0]]\nfmt.Print(v, ok, \";\")", "1 true;"},
		{"func() { fmt.Print(\"plainlit;\") }()", "plainlit;"},
		{"x := 1\nfunc() { fmt.Print(\"mid\", x, \";\") }()\nfmt.Print(\"end;\")", "mid1;end;"},
		{"fmt.Print(\"last;\")", "last;"}, // nothing earlier runs again
	}
	for _, c := range cases {
		before := len(out.String())
		mustEval(t, s, c.code)
		if got := out.String()[before:]; got != c.want {
			t.Errorf("cell %q printed %q; want %q", c.code, got, c.want)
		}
	}
}

// A function literal called at the top level runs once, and its value is
// the cell's value.
func TestFuncLitCallRunsOnce(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, "n := 0")
	if r := mustEval(t, s, "func() int { n++; return n * 10 }()"); r.Value != 10 {
		t.Errorf("value = %v; want 10", r.Value)
	}
	mustEval(t, s, "func(k int) { n += k }(5)")
	for range 3 {
		mustEval(t, s, "fmt.Print(\"\")")
	}
	if r := mustEval(t, s, "n"); r.Value != 6 {
		t.Errorf("n = %v after the cells; want 6 (each literal call ran once)", r.Value)
	}
	_ = out
}

// A print flood is cut at MaxStreamBytes with one notice, and stays
// interruptible.
func TestOutputCap(t *testing.T) {
	t.Parallel()
	out, errb := &countWriter{}, &syncBuf{}
	s, err := eval.New(eval.Options{Symbols: labSymbols, Stdout: out, Stderr: errb})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err = s.Eval(ctx, "import \"strings\"\nz := strings.Repeat(\"z\", 65536)\nfor { fmt.Print(z) }")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("flood: Eval = %v; want interrupted by its deadline", err)
	}
	if n := out.n(); n != eval.MaxStreamBytes {
		t.Errorf("flood passed on %d bytes; want exactly MaxStreamBytes = %d", n, eval.MaxStreamBytes)
	}
	if c := strings.Count(errb.String(), "truncated after 16 MiB"); c != 1 {
		t.Errorf("stderr has %d truncation notices; want 1: %q", c, errb.String())
	}
	// The next cell has its own budget.
	mustEval(t, s, "fmt.Print(\"after\")")
	if n := out.n(); n != eval.MaxStreamBytes+5 {
		t.Errorf("after the flood the next cell passed on %d bytes; want 5", n-eval.MaxStreamBytes)
	}
}

type countWriter struct {
	mu    chan struct{}
	count int
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.lock()
	c.count += len(p)
	c.unlock()
	return len(p), nil
}
func (c *countWriter) lock() {
	if c.mu == nil {
		c.mu = make(chan struct{}, 1)
	}
	c.mu <- struct{}{}
}
func (c *countWriter) unlock() { <-c.mu }
func (c *countWriter) n() int  { c.lock(); defer c.unlock(); return c.count }

// An interrupted `$ cmd` leaves no process of its group; Close kills what
// a shell line left in the background.
func TestShellProcessGroupKilled(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, "$ echo $$ >&2; sh -c 'echo $$' ; true")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	before := len(out.String())
	t0 := time.Now()
	_, err := s.Eval(ctx, "$ sleep 60 & echo $!; sleep 61")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Eval = %v; want interrupted", err)
	}
	if el := time.Since(t0); el > 3*time.Second {
		t.Errorf("interrupting the shell line took %v", el)
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(out.String()[before:]))
	if perr != nil {
		t.Fatalf("background pid: %q", out.String()[before:])
	}
	waitGone(t, pid)
	// A background job of a line that finished is killed by Close.
	before = len(out.String())
	mustEval(t, s, "$ sleep 62 >/dev/null 2>&1 & echo $!")
	pid, perr = strconv.Atoi(strings.TrimSpace(out.String()[before:]))
	if perr != nil {
		t.Fatalf("background pid: %q", out.String()[before:])
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("background sleep %d is not running before Close", pid)
	}
	s.Close()
	waitGone(t, pid)
}

// waitGone waits up to 3 s for process pid to be gone (or a zombie).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 300 {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("process %d still running", pid)
}
