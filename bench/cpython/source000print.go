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
// through a workload.Printer to an undrained-rate pipe: a write(2) per line
// on the event loop, a queue drained by one writer, or nothing), both
// driven by the same closed-VU Go client, and returns a frame with one row
// per endpoint and metric (avg_ms, rps): strategy, load, metric, model,
// real, ratio, model_rank and real_rank (1 = slowest by avg_ms), agree and
// verdict. Absolute figures differ — CPython spends far more per request
// than the model's Go — so agreement is on the source's finding: /doPrint
// is the slowest endpoint on both sides, and each other endpoint is faster
// than it on both.
func Compare000Print(ctx context.Context, opts Options, lines, vus int, duration time.Duration) (*frame.Frame, error) {
	if lines <= 0 || lines > 1_000_000 {
		return nil, fmt.Errorf("cpython: Compare000Print: lines must be in 1..1000000, got %d", lines)
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
	model, real := newSummaryFrame("model"), newSummaryFrame("real CPython")
	for _, ep := range Endpoints000Print {
		r, err := ClosedVUs(ctx, ep, Get(srv.URL()+ep), vus, duration, 0)
		if err != nil {
			return nil, err
		}
		m, err := modelPrint000(ctx, ep, lines, vus, duration, env.CPUs)
		if err != nil {
			return nil, err
		}
		if real, err = frame.Concat(real.Name, real, r); err != nil {
			return nil, err
		}
		if model, err = frame.Concat(model.Name, model, m); err != nil {
			return nil, err
		}
	}
	slowest := func(f *frame.Frame) string {
		s, worst := "", -1.0
		for i := 0; i < f.Len(); i++ {
			if v := f.Float("avg_ms", i); v > worst {
				s, worst = f.Text("strategy", i), v
			}
		}
		return s
	}
	ms, rs := slowest(model), slowest(real)
	out := frame.New("source 000 print: model vs real CPython")
	for i := 0; i < model.Len(); i++ {
		ep := model.Text("strategy", i)
		j := -1
		for k := 0; k < real.Len(); k++ {
			if real.Text("strategy", k) == ep {
				j = k
			}
		}
		if j < 0 {
			return nil, fmt.Errorf("cpython: Compare000Print: no real run of %s", ep)
		}
		if n := real.Float("count", j); n == 0 || real.Float("errors", j) > 0 {
			return nil, fmt.Errorf("cpython: Compare000Print: real %s answered %v requests with %v errors (%s)", ep, n, real.Float("errors", j), real.Text("first_error", j))
		}
		agree := (ep == ms) == (ep == rs)
		v := fmt.Sprintf("agrees: %s is the slowest endpoint on both sides", ep)
		switch {
		case agree && ep != ms:
			v = fmt.Sprintf("agrees: %s is faster than %s on both sides", ep, ms)
		case !agree:
			v = fmt.Sprintf("disagrees: the slowest endpoint is %s in the model and %s for real", ms, rs)
		}
		for _, metric := range []string{"avg_ms", "rps"} {
			mv, rv := model.Float(metric, i), real.Float(metric, j)
			out.MustAppend(frame.Row{"strategy": ep, "load": model.Text("load", i), "metric": metric,
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
	st.CPUs = cpus
	srv, err := startModel(ctx, st, []pymodel.Step{strategy.Print(p, lines, ep+" line")})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	return ClosedVUs(ctx, ep, Get(srv.URL()+ep), vus, duration, 0)
}
