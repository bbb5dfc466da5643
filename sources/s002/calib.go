package s002

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
)

// Part is source 002's part of the calibration: the client's own CPU per
// call, requests.get one after another and aiohttp gathered, each the
// client process's CPU time over CallsCalibrated calls of a 1 ms
// downstream, divided by the calls.
const Part = "002"

// CallsCalibrated is how many calls each client makes to measure it.
const CallsCalibrated = 100

func init() {
	calib.Register(calib.Measurement{Name: Part, Files: Files(), Measure: func(ctx context.Context, o calib.Options) ([]calib.Cost, error) {
		c, err := MeasureCallCPU(ctx, cpython.Options{Python: o.Python}, CallsCalibrated)
		if err != nil {
			return nil, err
		}
		return c.Costs(), nil
	}})
}

// CallCPU is a Python client's own CPU per call on this machine: building
// the request, parsing the answer, the connection — under its GIL.
type CallCPU struct {
	Requests, AIOHTTP time.Duration
}

// MeasureCallCPU runs the real sequential (requests) and asyncio
// (aiohttp) clients for n calls each against the real downstream
// answering in 1 ms, and divides each client process's CPU time by n.
func MeasureCallCPU(ctx context.Context, o cpython.Options, n int) (CallCPU, error) {
	if n < 1 || n > 10000 {
		return CallCPU{}, fmt.Errorf("s002: MeasureCallCPU: n must be in 1..10000, got %d", n)
	}
	srv := cpython.NewServer(App(time.Millisecond), o)
	if err := srv.Start(ctx); err != nil {
		return CallCPU{}, err
	}
	defer srv.Close()
	var out CallCPU
	for _, m := range []struct {
		c  Client
		to *time.Duration
	}{{Client{Mode: Sequential}, &out.Requests}, {Client{Mode: AsyncIO}, &out.AIOHTTP}} {
		f, err := RunClient(ctx, o, srv.URL()+"/health", m.c, n)
		if err != nil {
			return CallCPU{}, err
		}
		cpu, err := f.Get("strategy", cpython.RealPrefix+m.c.Label(), "cpu_s")
		if err != nil {
			return CallCPU{}, fmt.Errorf("s002: MeasureCallCPU: %w", err)
		}
		if !(cpu > 0) {
			return CallCPU{}, fmt.Errorf("s002: MeasureCallCPU: %s used %v s of CPU for %d calls", m.c.Label(), cpu, n)
		}
		*m.to = time.Duration(cpu / float64(n) * float64(time.Second))
	}
	return out, nil
}

// Costs are the clients' CPU per call as the calibration's part.
func (c CallCPU) Costs() []calib.Cost {
	return []calib.Cost{
		{Name: "requests.get", Value: c.Requests, GILHeld: 1, Detail: fmt.Sprintf("client002.py --mode sequential: the process's CPU over %d calls, per call", CallsCalibrated)},
		{Name: "aiohttp get", Value: c.AIOHTTP, GILHeld: 1, Detail: fmt.Sprintf("client002.py --mode asyncio: the process's CPU over %d calls, per call", CallsCalibrated)},
	}
}

// CallCPUFrom reads the clients' CPU per call from a calibration table's
// part (calib.Machine(ctx, "", s002.Part)).
func CallCPUFrom(t *calib.Table) (CallCPU, error) {
	r, err := t.Cost(Part, "requests.get")
	if err != nil {
		return CallCPU{}, err
	}
	a, err := t.Cost(Part, "aiohttp get")
	if err != nil {
		return CallCPU{}, err
	}
	return CallCPU{Requests: r.Value, AIOHTTP: a.Value}, nil
}
