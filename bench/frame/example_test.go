package frame_test

import (
	"errors"
	"fmt"

	"github.com/conclab/conclab/bench/frame"
)

// burst is a summary frame as a notebook meets it: one row per strategy.
func burst() *frame.Frame {
	f := frame.Of("burst of 10", "strategy", "elapsed_s", "rps")
	_ = f.Add("/sync-sleep", 1.03, 9.7)
	_ = f.Add("/async-block", 10.02, 1.0)
	_ = f.Add("/async-ok", 1.01, 9.9)
	return f
}

func ExampleOf() {
	f := frame.Of("burst of 10", "strategy", "elapsed_s", "rps")
	fmt.Println(f.Columns(), f.Len())
	// Output:
	// [strategy elapsed_s rps] 0
}

func ExampleFrame_Add() {
	f := frame.Of("burst of 10", "strategy", "elapsed_s", "rps")
	if err := f.Add("/sync-sleep", 1.03, 9.7); err != nil {
		fmt.Println(err)
	}
	if err := f.Add("/async-block", 10.02); err != nil {
		fmt.Println(err)
	}
	fmt.Print(f)
	// Output:
	// frame "burst of 10": Add: 2 values for 3 columns (strategy, elapsed_s, rps)
	// burst of 10
	// strategy     elapsed_s  rps
	// /sync-sleep       1.03  9.70
}

func ExampleFrame_Compute() {
	const wait = 1.0 // each request waits 1 s
	f, err := burst().Compute("waits", func(r frame.Row) any {
		return r.Float("elapsed_s") / wait
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(f)
	// Output:
	// burst of 10
	// strategy      elapsed_s  rps   waits
	// /sync-sleep        1.03  9.70   1.03
	// /async-block      10.02     1  10.02
	// /async-ok          1.01  9.90   1.01
}

func ExampleFrame_Lookup() {
	r, err := burst().Lookup("strategy", "/async-block")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Float("elapsed_s"), r.Text("strategy"))
	_, err = burst().Lookup("strategy", "/async-sleep")
	fmt.Println(err)
	// Output:
	// 10.02 /async-block
	// frame "burst of 10": no row with strategy "/async-sleep" (strategy: /sync-sleep, /async-block, /async-ok)
}

func ExampleFrame_Get() {
	f := burst()
	block, err := f.Get("strategy", "/async-block", "elapsed_s")
	if err != nil {
		fmt.Println(err)
		return
	}
	ok, err := f.Get("strategy", "/async-ok", "elapsed_s")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("blocking the loop took %.1fx as long\n", block/ok)
	_, err = f.Get("strategy", "/async-ok", "p95_ms")
	fmt.Println(err)
	// Output:
	// blocking the loop took 9.9x as long
	// frame "burst of 10": no column "p95_ms" (columns: strategy, elapsed_s, rps)
}

func ExampleRow_Float() {
	r := frame.Row{"strategy": "sync", "elapsed_s": 1.5, "n": 10}
	fmt.Println(r.Float("elapsed_s"), r.Float("n"), r.Text("strategy"), r.Has("rps"))
	// Output:
	// 1.5 10 sync false
}

// A typo in a column name is an error naming the column and listing the
// frame's columns, never a silent NaN: methods with an error result return a
// *frame.ColumnError, accessors without one panic with it.
func ExampleColumnError() {
	f := burst()
	_, err := f.Compute("per_s", func(r frame.Row) any { return 1 / r.Float("elapsd_s") })
	var ce *frame.ColumnError
	fmt.Println(errors.As(err, &ce), ce.Column)
	fmt.Println(err)

	defer func() { fmt.Println(recover()) }()
	f.Float("p99_ms", 0)
	// Output:
	// true elapsd_s
	// frame "burst of 10": no column "elapsd_s" (columns: strategy, elapsed_s, rps)
	// frame "burst of 10": no column "p99_ms" (columns: strategy, elapsed_s, rps)
}
