package frame_test

import (
	"fmt"

	"github.com/conclab/conclab/bench/frame"
)

// Concat stacks frames with the same columns, e.g. two runs' summaries.
func ExampleConcat() {
	a := frame.Of("a", "strategy", "rps")
	_ = a.Add("sync", 15.7)
	b := frame.Of("b", "strategy", "rps")
	_ = b.Add("asyncio", 8.2)
	both, err := frame.Concat("both", a, b)
	fmt.Println(both.Texts("strategy"), both.Floats("rps"), err)
	// Output:
	// [sync asyncio] [15.7 8.2] <nil>
}
