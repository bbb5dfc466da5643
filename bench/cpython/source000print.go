package cpython

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/workload"
)

// Endpoints000Print are source 000's print endpoints in the source's order.
var Endpoints000Print = []string{DoPrint, DoPrintAsync, DontPrint}

// PrintMode000 is the bench/workload printer mode that models an endpoint
// of source 000's print app: a write(2) per line, a buffered async writer,
// or nothing.
func PrintMode000(endpoint string) (string, error) {
	switch endpoint {
	case DoPrint:
		return workload.PrintSync, nil
	case DoPrintAsync:
		return workload.PrintAsync, nil
	case DontPrint:
		return workload.PrintNone, nil
	}
	return "", fmt.Errorf("cpython: unknown source-000 print endpoint %q (want one of %s)", endpoint, strings.Join(Endpoints000Print, ", "))
}

// Compare000Print runs source 000's print endpoints for real (App000Print
// printing lines lines per request, stdout to its log file) and on the
// model (an async def handler in bench/strategy printing the same lines
// through a workload.Printer to an unthrottled pipe: a write(2) per line on
// the event loop, a queue drained by one writer, or nothing), both driven
// by the same closed-VU Go client, and returns a frame with one row per
// endpoint and metric (avg_ms, rps): strategy, load, metric, model, real,
// ratio, slowest_model and slowest_real (1 for the endpoint with the
// largest avg_ms on that side), agree and verdict. Absolute figures differ
// — CPython spends far more per request than the model's Go — so agreement
// is on the source's finding: /doPrint is the slowest endpoint on both
// sides (its row agrees when it is), and each other endpoint is faster than
// /doPrint on both sides, by the row's metric (lower avg_ms, higher rps).
// A side whose run had errors or no requests is an error.
func Compare000Print(ctx context.Context, opts Options, lines, vus int, duration time.Duration) (*frame.Frame, error) {
	if lines <= 0 || lines > 1_000_000 {
		return nil, fmt.Errorf("cpython: Compare000Print: lines must be in 1..1000000, got %d", lines)
	}
	if vus <= 0 || vus > MaxVUs || duration <= 0 || duration > time.Hour {
		return nil, fmt.Errorf("cpython: Compare000Print: vus must be in 1..%d and duration in (0, 1h], got %d and %v", MaxVUs, vus, duration)
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	app := App000Print(lines)
	if err := env.Require(app.Requires...); err != nil {
		return nil, err
	}
	srv := NewServer(app, opts)
	if err := srv.Start(ctx); err != nil {
		return nil, err
	}
	defer srv.Close()
	model, real := map[string]*frame.Frame{}, map[string]*frame.Frame{}
	for _, ep := range Endpoints000Print {
		r, err := ClosedVUs(ctx, ep, Get(srv.URL()+ep), vus, duration, 0)
		if err != nil {
			return nil, fmt.Errorf("cpython: Compare000Print: %s (real): %w", ep, err)
		}
		m, err := modelPrint000(ctx, ep, lines, vus, duration, env.CPUs)
		if err != nil {
			return nil, fmt.Errorf("cpython: Compare000Print: %s (model): %w", ep, err)
		}
		for side, f := range map[string]*frame.Frame{"real": r, "model": m} {
			if n := f.Float("count", 0); n == 0 || f.Float("errors", 0) > 0 {
				return nil, fmt.Errorf("cpython: Compare000Print: %s (%s) answered %v requests with %v errors (%s)", ep, side, n, f.Float("errors", 0), f.Text("first_error", 0))
			}
		}
		real[ep], model[ep] = r, m
	}
	slowest := func(side map[string]*frame.Frame) string {
		s, worst := "", -1.0
		for _, ep := range Endpoints000Print {
			if v := side[ep].Float("avg_ms", 0); v > worst {
				s, worst = ep, v
			}
		}
		return s
	}
	ms, rs := slowest(model), slowest(real)
	out := frame.New("source 000 print: model vs real CPython")
	for _, ep := range Endpoints000Print {
		for _, metric := range []string{"avg_ms", "rps"} {
			mv, rv := model[ep].Float(metric, 0), real[ep].Float(metric, 0)
			var agree bool
			var v string
			if ep == DoPrint {
				agree = ms == DoPrint && rs == DoPrint
				v = "agrees: /doPrint is the slowest endpoint on both sides"
				if !agree {
					v = fmt.Sprintf("disagrees: the slowest endpoint is %s in the model and %s for real (the source: /doPrint)", ms, rs)
				}
			} else {
				better := func(side map[string]*frame.Frame) bool {
					a, b := side[ep].Float(metric, 0), side[DoPrint].Float(metric, 0)
					if metric == "rps" {
						return a > b
					}
					return a < b
				}
				mb, rb := better(model), better(real)
				agree = mb && rb
				v = fmt.Sprintf("agrees: %s beats /doPrint on %s on both sides", ep, metric)
				if !agree {
					v = fmt.Sprintf("disagrees: %s beats /doPrint on %s in the model: %v, for real: %v", ep, metric, mb, rb)
				}
			}
			out.MustAppend(frame.Row{"strategy": ep, "load": model[ep].Text("load", 0), "metric": metric,
				"model": mv, "real": rv, "ratio": rv / mv, "slowest_model": ep == ms, "slowest_real": ep == rs,
				"agree": agree, "verdict": v})
		}
	}
	return env.Describe(out), nil
}

// modelPrint000 runs one print endpoint on the model, over HTTP.
func modelPrint000(ctx context.Context, ep string, lines, vus int, duration time.Duration, cpus int) (*frame.Frame, error) {
	mode, err := PrintMode000(ep)
	if err != nil {
		return nil, err
	}
	var sink *workload.Sink
	if mode != workload.PrintNone {
		if sink, err = workload.OpenSink("pipe"); err != nil {
			return nil, err
		}
		defer sink.Close()
	}
	p, err := workload.NewPrinter(mode, sink, 0)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	st, err := strategy.Preset(ep)
	if err != nil {
		return nil, err
	}
	if u, ok := st.(strategy.Uvicorn); ok {
		u.CPUs = cpus
		st = u
	}
	srv, err := startModel(ctx, st, []pymodel.Step{strategy.Print(p, lines, ep+" line")})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	return closedVUs(ctx, ep, Get(srv.URL()+ep), vus, duration, 0, srv.InProcessCPU)
}
