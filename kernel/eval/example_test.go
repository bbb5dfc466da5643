package eval_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/conclab/conclab/kernel/eval"
)

func Example() {
	s, err := eval.New(eval.Options{Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Eval(ctx, `x := 20
fmt.Println("x is", x)`); err != nil {
		fmt.Println(err)
	}
	r, _ := s.Eval(ctx, "x * 2 + 2")
	fmt.Println(r.HasValue, r.Data.Data["text/plain"])

	_, err = s.Eval(ctx, "var m map[string]int\nm[\"k\"] = 1")
	var e *eval.Error
	if errors.As(err, &e) {
		fmt.Println(e.Name, "at line", e.Line)
	}
	// Output:
	// x is 20
	// true 42
	// panic at line 2
}
