package eval_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/conclab/conclab/internal/symbols"
	"github.com/conclab/conclab/kernel/eval"
)

func Example() {
	// The command links the lab's packages in; without Symbols a session
	// has the standard library only.
	s, err := eval.New(eval.Options{Stdout: os.Stdout, Stderr: os.Stderr,
		Symbols: eval.Symbols{Packages: symbols.Symbols, Docs: symbols.Docs}})
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

// A top-level statement assigning err is followed by a check: a non-nil
// error stops the cell there, named by its type, with its message and line.
func Example_errorIdiom() {
	s, err := eval.New(eval.Options{Stdout: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	_, err = s.Eval(context.Background(), `import "strconv"
n, err := strconv.Atoi("12x")
fmt.Println("not reached", n)`)
	var e *eval.Error
	if errors.As(err, &e) {
		fmt.Println(e.Name)
		fmt.Println(e.Value)
		for _, l := range e.Traceback {
			fmt.Println(l)
		}
	}
	// Output:
	// *strconv.NumError
	// strconv.Atoi: parsing "12x": invalid syntax
	// *strconv.NumError: strconv.Atoi: parsing "12x": invalid syntax
	//   at cell line 2: n, err := strconv.Atoi("12x")
}
