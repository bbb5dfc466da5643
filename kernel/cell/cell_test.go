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
