package lab_test

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/lab"
	"github.com/conclab/conclab/sources/s000print"
	"github.com/conclab/conclab/sources/s001"
	"github.com/conclab/conclab/sources/s002"
	"github.com/conclab/conclab/sources/shape"
)

// Agree pairs model rows "X" with real rows "real X" of a summary and
// gives each pair and metric a verdict.
func ExampleAgree() {
	f := frame.New("summary")
	_ = f.AddColumn("strategy", frame.Label)
	for _, r := range []frame.Row{
		{"strategy": "/async-block", "elapsed_s": 10.0}, {"strategy": "real /async-block", "elapsed_s": 10.4},
		{"strategy": "/async-ok", "elapsed_s": 1.0}, {"strategy": "real /async-ok", "elapsed_s": 1.3},
		{"strategy": "/offload", "elapsed_s": 1.0}, {"strategy": "real /offload", "elapsed_s": 12.0},
	} {
		f.MustAppend(r)
	}
	a, err := lab.Agree("source 001", f, 0.10, "elapsed_s")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Line())
	for _, v := range a.Frame.Texts("verdict") {
		fmt.Println(v)
	}
	fmt.Println(a.Err())
	// Output:
	// 1 of 3 agree within ±10 %; 1 agree in ordering only
	// agrees: elapsed_s model 10, real 10.40 (+4 %), within ±10 %
	// ordering only: elapsed_s model 1, real 1.30 (+30 %), beyond ±10 %; no other row is clearly ordered the other way
	// disagrees: elapsed_s model 1, real 12 (+1100 %), beyond ±10 %
	// source 001: model and real CPython disagree beyond ±10 % and in ordering on /offload elapsed_s (1 of 3 agree within ±10 %; 1 agree in ordering only)
}

// ModelVsReal runs one experiment holding model and real strategies (here
// source 001's) and shows the verdicts; a sleep-based comparison such as
// this one returns a.Err() to fail on a row that agrees neither within the
// tolerance nor in ordering. It skips (nil, nil) without real CPython.
func ExampleModelVsReal() {
	a, err := lab.ModelVsReal(context.Background(), s001.Default.Versus(cpython.Options{}), lab.SleepTolerance, "elapsed_s")
	if err != nil {
		fmt.Println(err)
		return
	}
	if a != nil {
		fmt.Println(a.Line())
	}
	if err := a.Err(); err != nil {
		fmt.Println(err)
	}
}

// ModelVsRealOf takes a comparison that is not one bench.Run: source 002's
// clients, modelled and real.
func ExampleModelVsRealOf() {
	a, err := lab.ModelVsRealOf(context.Background(), "source 002", func(ctx context.Context) (*frame.Frame, error) {
		f, _, err := s002.Default.Versus(ctx, cpython.Options{})
		return f, err
	}, lab.SleepTolerance, "elapsed_s")
	if err != nil {
		fmt.Println(err)
		return
	}
	if a != nil {
		fmt.Println(a.Line())
	}
}

// Run runs an experiment read by its shape: source 000's print order on
// the model and, where CPython is installed, for real.
func ExampleRun() {
	k := s000print.Default
	k.VUs, k.Duration, k.Lines = 10, 2*time.Second, 1000
	res, err := lab.Run(context.Background(), k.Versus(nil, cpython.Options{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(shape.Err("source 000 print", k.Checks(res)...))
}
