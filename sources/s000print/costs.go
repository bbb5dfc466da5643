package s000print

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
)

// Part is the source's part of the calibration: print()'s costs per line,
// CPU time in a plain CPython process with PYTHONUNBUFFERED=1 and stdout a
// file (py/calibrate_print.py) — "print() line" (print(f"doPrint line
// {i}"): two write(2)s), "os.write line" (one os.write of the line: what
// the model's own write(2) per line stands for) and "async writer line"
// (the buffered writer's append of the f-string, on the loop).
const Part = "000 print"

func init() {
	calib.Register(calib.Measurement{Name: Part, Files: Files(), Measure: func(ctx context.Context, o calib.Options) ([]calib.Cost, error) {
		lines, repeat := 50_000, 5
		if o.Quick {
			lines, repeat = 5_000, 1
		}
		m, err := measure(ctx, cpython.Options{Python: o.Python}, lines, repeat)
		if err != nil {
			return nil, err
		}
		return []calib.Cost{
			{Name: "print() line", Value: m.line(m.Print), GILHeld: 1,
				Detail: fmt.Sprintf("print(f\"doPrint line {i}\"), PYTHONUNBUFFERED=1, to a file: %.0f write(2)s a print", m.WritesPerPrint)},
			{Name: "os.write line", Value: m.line(m.Write), GILHeld: 0, Detail: "one os.write of the line: what the model's own write(2) stands for"},
			{Name: "async writer line", Value: m.line(m.Async), GILHeld: 1, Detail: "an f-string appended to the writer's list, on the loop"},
		}, nil
	}})
}

// printMeasure is what calibrate_print.py prints.
type printMeasure struct {
	Print            float64 `json:"print_line"`
	Write            float64 `json:"write_line"`
	Async            float64 `json:"async_line"`
	WritesPerPrint   float64 `json:"writes_per_print"`
	BufferedPerPrint float64 `json:"buffered_writes_per_print"`
}

func (printMeasure) line(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func measure(ctx context.Context, o cpython.Options, lines, repeat int) (printMeasure, error) {
	var m printMeasure
	err := cpython.Script{Files: Files(), Name: "calibrate_print.py",
		Args: []string{"--lines", fmt.Sprint(lines), "--repeat", fmt.Sprint(repeat)}}.Run(ctx, o, &m)
	if err != nil {
		return m, err
	}
	if m.Print <= 0 || m.Write <= 0 || m.Async <= 0 || m.WritesPerPrint <= 0 {
		return m, fmt.Errorf("s000print: calibrate_print.py measured %+v", m)
	}
	return m, nil
}

// Writes is how many write(2) system calls one print() makes on this
// machine's CPython, counted by the kernel (/proc/self/io's syscw) over
// 1,000 prints to a file: Unbuffered with PYTHONUNBUFFERED=1, as the
// source ran it (two: the text, then the line's end), Buffered without
// (stdout to a file is block-buffered: a write per 8 KiB or so).
type Writes struct{ Unbuffered, Buffered float64 }

// MeasureWrites counts the write(2)s a print() makes (Writes).
func MeasureWrites(ctx context.Context, o cpython.Options) (Writes, error) {
	m, err := measure(ctx, o, 1000, 1)
	if err != nil {
		return Writes{}, err
	}
	return Writes{Unbuffered: m.WritesPerPrint, Buffered: m.BufferedPerPrint}, nil
}

// Costs are what the model pays to print as CPython does.
type Costs struct {
	// Framework is the server stack's own cost per request.
	Framework pymodel.FrameworkCost
	// PrintLine is a print() line's CPU, PrintWrite one os.write of it,
	// AsyncLine the async writer's append.
	PrintLine, PrintWrite, AsyncLine time.Duration
}

// PrintExtra is what a print() line costs beyond one write(2), CPU holding
// the GIL: the model adds it to each line its sync printer writes.
func (c *Costs) PrintExtra() time.Duration {
	if c == nil {
		return 0
	}
	return max(0, c.PrintLine-c.PrintWrite)
}

// CostsFrom reads Costs from a calibration table holding the framework's
// part and this source's (calib.Machine(ctx, "", calib.FrameworkPart,
// s000print.Part)).
func CostsFrom(t *calib.Table) (*Costs, error) {
	fw, err := calib.Framework(t)
	if err != nil {
		return nil, err
	}
	c := &Costs{Framework: fw}
	for _, x := range []struct {
		name string
		d    *time.Duration
	}{{"print() line", &c.PrintLine}, {"os.write line", &c.PrintWrite}, {"async writer line", &c.AsyncLine}} {
		v, err := t.Cost(Part, x.name)
		if err != nil {
			return nil, err
		}
		*x.d = v.Value
	}
	return c, nil
}

// SourceFramework is the source machine's framework cost, derived from
// this source's own numbers (Table): /dontPrint answered 98 req/s at 15.4
// ms on average with 100 VUs thinking about 1 s (ImpliedThink), so the
// loop was far from busy; the VUs start together and stay in step, so
// each second about 100 requests meet one event loop at once and the k-th
// waits for k loop turns: a mean of (100 + 1) / 2 x Loop = 15.4 ms gives
// Loop = 0.30 ms. The def hand-off and gunicorn's thread are not in the
// sources' numbers and are taken as this machine's shares of Loop would
// suggest — the def hand-off as large again, Flask's thread a third more,
// a thread's start half of it (an assumption, stated).
func SourceFramework() pymodel.FrameworkCost {
	loop := 300 * time.Microsecond
	return pymodel.FrameworkCost{Loop: loop, Threadpool: loop, Thread: loop * 4 / 3, ThreadStart: loop / 2}
}
