package cell_test

import (
	"context"
	"fmt"

	"github.com/conclab/conclab/kernel/cell"
)

func ExampleContext() {
	ctx, cancel := context.WithCancel(context.Background())
	restore := cell.Set(ctx) // done by the evaluator for each cell
	cancel()                 // the user interrupts the cell
	fmt.Println(cell.Context().Err())
	restore()
	fmt.Println(cell.Context().Err())
	// Output:
	// context canceled
	// <nil>
}

func ExampleSession() {
	cell.SetSession("f3b1c0de") // done by the kernel: the execute_request header's session
	fmt.Println(cell.Session())
	cell.SetSession("")
	fmt.Println(cell.Session() == "")
	// Output:
	// f3b1c0de
	// true
}
