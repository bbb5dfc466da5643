package s003

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
)

// Part is source 003's part of the calibration: the sum of squares of
// SumCalibrated, "alone" (one call's CPU time, median) and "10 at once"
// (the process's CPU time per call with ten threads computing it at once
// in a fresh interpreter, as a fresh worker's first burst: ten lists of n
// ints alive at once cost more than one call after another on a warm
// heap).
const Part = "003"

// SumCalibrated is the bound the registered calibration times; SumCost
// scales it linearly.
const SumCalibrated = 1_000_000

func init() {
	calib.Register(calib.Measurement{Name: Part, Files: Files(), Measure: func(ctx context.Context, o calib.Options) ([]calib.Cost, error) {
		repeat := 3
		if o.Quick {
			repeat = 1
		}
		s, err := MeasureSum(ctx, cpython.Options{Python: o.Python}, SumCalibrated, repeat)
		if err != nil {
			return nil, err
		}
		return s.Costs(), nil
	}})
}

// Sum is the sum of squares' cost measured on this machine.
type Sum struct {
	N int
	// Alone is one call's CPU time (median); Burst the process's CPU time
	// per call, ten at once in a fresh interpreter (median round);
	// Threaded the wall time per call then.
	Alone, Burst, Threaded time.Duration
}

// MeasureSum times the sum of squares of n on this machine's CPython
// (py/calibrate_sum.py), repeat times (rounds of ten in fresh
// interpreters).
func MeasureSum(ctx context.Context, o cpython.Options, n, repeat int) (Sum, error) {
	if n < 1 || repeat < 1 {
		return Sum{}, fmt.Errorf("s003: MeasureSum: n and repeat must be at least 1, got %d, %d", n, repeat)
	}
	var r struct {
		N           int     `json:"n"`
		Seconds     float64 `json:"seconds"`
		Threaded    float64 `json:"threaded_seconds"`
		ThreadedCPU float64 `json:"threaded_cpu_seconds"`
	}
	err := cpython.Script{Files: Files(), Name: "calibrate_sum.py", Args: []string{"--n", strconv.Itoa(n), "--repeat", strconv.Itoa(repeat)}}.Run(ctx, o, &r)
	if err != nil {
		return Sum{}, err
	}
	if r.Seconds <= 0 || r.ThreadedCPU <= 0 || r.N != n {
		return Sum{}, fmt.Errorf("s003: calibrate_sum.py measured %+v for n %d", r, n)
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return Sum{N: n, Alone: sec(r.Seconds), Burst: sec(r.ThreadedCPU), Threaded: sec(r.Threaded)}, nil
}

// Costs are the sum's costs as the calibration's part.
func (s Sum) Costs() []calib.Cost {
	return []calib.Cost{
		{Name: "sum of squares", Value: s.Alone, GILHeld: 1, Detail: fmt.Sprintf("sum(x**2 for x in list(range(%d))), CPU time alone, median", s.N)},
		{Name: "sum of squares, 10 at once", Value: s.Burst, GILHeld: 1,
			Detail: fmt.Sprintf("the same in 10 threads at once, a fresh interpreter a round: CPU per call (%v wall a call; charged)", s.Threaded.Round(time.Millisecond))},
	}
}

// Cost is the CPU a request costs on the model: a call's in a burst of
// ten, scaled linearly to n.
func (s Sum) Cost(n int) time.Duration {
	if s.N <= 0 {
		return 0
	}
	return time.Duration(float64(s.Burst) * float64(n) / float64(s.N))
}

// SumCost is the sum of squares of n from a calibration table's part: a
// call's CPU in a burst of ten, scaled linearly from SumCalibrated.
func SumCost(t *calib.Table, n int) (time.Duration, error) {
	c, err := t.Cost(Part, "sum of squares, 10 at once")
	if err != nil {
		return 0, err
	}
	return Sum{N: SumCalibrated, Burst: c.Value}.Cost(n), nil
}
