package eval_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Closures made in a loop and run by other goroutines while the loop makes
// the next ones each see their own iteration's variables, every round; a
// function deferring a closure it made returns; deferred literals in a
// loop see their iteration's variables (the closures pass, closures.go).
// The rounds count wrong results: before the pass, 48 of 300 rounds of the
// wg.Go form were wrong on an idle machine, the go statement form ran a
// closure twice ("sync: negative WaitGroup counter"), and wg.Go once
// called a nil func.
func TestClosuresMadeInLoops(t *testing.T) {
	t.Parallel()
	const rounds = 300
	// %s is the statement that runs add(i) for i = 1..10 on goroutines.
	roundsOf := func(start string) string {
		return fmt.Sprintf(`func rounds() int {
	bad := 0
	for round := 0; round < %d; round++ {
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		add := func(n int) { mu.Lock(); total += n; mu.Unlock() }
		for i := 1; i <= 10; i++ {
			%s
		}
		wg.Wait()
		if total != 55 {
			bad++
		}
	}
	return bad
}`, rounds, start)
	}
	cases := []struct {
		name, start string
	}{
		{"wg.Go", `wg.Go(func() { add(i) })`},
		{"go statement", `wg.Add(1)
			go func() { defer wg.Done(); add(i) }()`},
		{"go statement with an argument", `wg.Add(1)
			go func(n int) { defer wg.Done(); add(n) }(i)`},
		{"closure variable", `f := func() { add(i) }
			wg.Go(f)`},
		{"through an interpreted function", `spawn(&wg, func() { add(i) })`},
		{"a literal whose type spans lines", `wg.Go(func() { func(p struct {
				A int
				B int
			}) { add(p.A + p.B) }(struct {
				A int
				B int
			}{i, 0}) })`},
		{"parenthesised", `wg.Go((func() { add(i) }))`},
		{"range", `_ = i
			for _, k := range []int{i} { wg.Go(func() { add(k) }) }`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, _, _ := newSession(t)
			mustEval(t, s, `import "sync"
func spawn(wg *sync.WaitGroup, f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }`)
			mustEval(t, s, roundsOf(c.start))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r, err := s.Eval(ctx, "rounds()")
			if err != nil {
				t.Fatalf("rounds(): %v", err)
			}
			if r.Value != 0 {
				t.Errorf("%v of %d rounds summed to something else than 55", r.Value, rounds)
			}
		})
	}
}

func TestClosuresDeferred(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, decl, want string
	}{
		{"a closure the function made", `func f() {
	stop := func() { fmt.Print("stopped ") }
	defer stop()
	fmt.Print("working ")
}`, "working stopped "},
		{"literals in a range over int", `func f() {
	for i := range 3 {
		defer func() { fmt.Print(i, " ") }()
	}
}`, "2 1 0 "},
		{"a literal with an argument in a three-clause loop", `func f() {
	for i := 0; i < 3; i++ {
		defer func(s string) { fmt.Print(s, i, " ") }("i=")
	}
}`, "i=2 i=1 i=0 "},
		{"closure variables in a loop", `func f() {
	for _, w := range []string{"a", "b"} {
		say := func() { fmt.Print(w, " ") }
		defer say()
	}
}`, "b a "},
		{"in a switch case", `func f() {
	for i := range 3 {
		switch {
		case i > 0:
			defer func() { fmt.Print(i, " ") }()
		}
	}
}`, "2 1 "},
		{"arguments in a loop", `func f() {
	for i := range 3 {
		defer func(n int) { fmt.Print(n, " ") }(i * 10)
		defer fmt.Print("p", i, " ")
	}
}`, "p2 20 p1 10 p0 0 "},
		{"function values in a loop", `func f() {
	fs := []func(){func() { fmt.Print("a ") }, func() { fmt.Print("b ") }}
	for _, g := range fs {
		defer g()
	}
}`, "b a "},
		{"recover in a loop", `func f() {
	n := 0
	defer func() { fmt.Print("n=", n, " ") }()
	for i := 0; i < 1; i++ {
		defer func() { if r := recover(); r != nil { n = -1 } }()
	}
	panic("x")
}`, "n=-1 "},
		{"a parenthesised literal", `func f() {
	x := (func() int { return 1 })
	defer (func() { fmt.Print("x=", x(), " ") })()
}`, "x=1 "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, out, _ := newSession(t)
			mustEval(t, s, c.decl)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := s.Eval(ctx, "f()"); err != nil {
				t.Fatalf("f(): %v", err)
			}
			if got := out.String(); !strings.Contains(got, c.want) {
				t.Errorf("f() printed %q; want %q", got, c.want)
			}
		})
	}
}

// A deferred call the defer rewrite cannot copy (a multi-value argument)
// costs that rewrite only: the literals of the same function are still
// made in frames of their own, and constants keep their untyped kind.
func TestClosuresDeferRewriteRejected(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, `import ("sync"; "time")
func setLevel(l uint8, f float32) {}
func two() (int, string) { return 2, "two" }
func show(n int, s string) {}
func run(multi bool) []int {
	const quiet = 0
	var wg sync.WaitGroup
	res := make([]int, 4)
	for i := 0; i < 4; i++ {
		if multi {
			defer show(two())
		}
		defer setLevel(quiet, 1.5*quiet)
		wg.Go(func() { time.Sleep(time.Millisecond); res[i] = i * i })
	}
	wg.Wait()
	return res
}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.Eval(ctx, `for _, multi := range []bool{false, true} {
	bad := 0
	for range 30 {
		if fmt.Sprint(run(multi)) != "[0 1 4 9]" {
			bad++
		}
	}
	fmt.Println("multi", multi, "bad", bad)
}`); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "multi false bad 0") || !strings.Contains(got, "multi true bad 0") {
		t.Errorf("rounds with wrong results:\n%s", got)
	}
}
