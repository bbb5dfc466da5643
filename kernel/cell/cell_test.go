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

func ExampleRunning() {
	_, before := cell.Running()
	restore := cell.Set(context.Background()) // a cell begins
	n1, during := cell.Running()
	restore()
	restore() // restoring twice is harmless
	n2, after := cell.Running()
	fmt.Println(before, during, after, n2 == n1)
	// Output:
	// false true false true
}

func ExampleOnInterrupt() {
	stop := cell.OnInterrupt(func() { fmt.Println("stopping the background work") })
	cell.Interrupted() // done by the kernel at an interrupt
	stop()
	cell.Interrupted()
	// Output:
	// stopping the background work
}
