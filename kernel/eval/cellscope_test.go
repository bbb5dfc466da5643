package eval_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// context.Background() and context.TODO() in a cell are the cell's
// context: cancelled when the cell is interrupted, not when it ends;
// printed as Go prints them.
func TestCellBackgroundContext(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, "kept := context.Background()\nfmt.Println(kept, context.TODO())\nc, cancel := context.WithCancel(kept)\nfmt.Println(c)\ncancel()")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s.Eval(ctx, "stopped := context.Background()\nderived, _ := context.WithTimeout(context.TODO(), time.Hour)\nselect {}")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("interrupted cell: %v", err)
	}
	r := mustEval(t, s, `fmt.Sprint(kept.Err(), " ", stopped.Err(), " ", derived.Err())`)
	if got, want := fmt.Sprint(r.Value), "<nil> context canceled context canceled"; got != want {
		t.Errorf("contexts after the interrupt: %s; want %s", got, want)
	}
	if got, want := out.String(), "context.Background context.TODO\ncontext.Background.WithCancel\n"; got != want {
		t.Errorf("printed %q; want %q", got, want)
	}
}

// A goroutine a cell started ends with the cell's interrupt, at its next
// sleep; goroutines of earlier cells run on.
func TestCellGoroutinesEnd(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	mustEval(t, s, "var mine, earlier atomic.Int64\ngo func() {\n\tfor {\n\t\ttime.Sleep(time.Millisecond)\n\t\tearlier.Add(1)\n\t}\n}()")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := s.Eval(ctx, "for range 3 {\n\tgo func() {\n\t\tfor {\n\t\t\ttime.Sleep(time.Millisecond)\n\t\t\tmine.Add(1)\n\t\t}\n\t}()\n}\nselect {}"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("interrupted cell: %v", err)
	}
	r := mustEval(t, s, "m0, e0 := mine.Load(), earlier.Load()\ntime.Sleep(100 * time.Millisecond)\nfmt.Sprint(mine.Load() == m0, \" \", earlier.Load() > e0)")
	if got := fmt.Sprint(r.Value); got != "true true" {
		t.Errorf("after the interrupt (the cell's goroutines stopped, the earlier cell's run on): %s; want true true", got)
	}
}

// A top-level defer runs when the cell ends, last first, with its
// arguments taken at the defer statement; also when the cell fails, not
// when it is interrupted.
func TestCellDefer(t *testing.T) {
	t.Parallel()
	s, out, _ := newSession(t)
	mustEval(t, s, "x := 1\ndefer fmt.Println(\"first deferred, x was\", x)\nx = 2\ndefer fmt.Println(\"second deferred\")\nfmt.Println(\"body\", x)")
	if _, err := s.Eval(context.Background(), "defer fmt.Println(\"deferred after a panic\")\npanic(\"boom\")"); err == nil {
		t.Fatal("the panicking cell did not fail")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := s.Eval(ctx, "defer fmt.Println(\"not after an interrupt\")\nselect {}"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("interrupted cell: %v", err)
	}
	want := "body 2\nsecond deferred\nfirst deferred, x was 1\ndeferred after a panic\n"
	if got := out.String(); got != want {
		t.Errorf("printed %q; want %q", got, want)
	}
}
