package cpython

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
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

// PrintModel is the model of one of source 000's print endpoints: an async
// def handler on uvicorn printing Lines lines per request through a
// workload.Printer of the endpoint's mode (PrintMode000) to an unthrottled
// pipe — a write(2) per line on the event loop, a queue drained by one
// writer, or nothing. Each Start opens its own pipe and printer and the
// server's Close closes them; the Experiment's workload is ignored.
//
// With Costs (a measured Framework), the model also pays what CPython
// does: the stack's own cost per request on the loop (Costs.Cost, unless
// Python.Framework is set) and, per line, what print() costs beyond its
// write(2) (sync, as CPU holding the GIL before the lines are printed) or
// the writer's append (async: the enqueue step's CPU time is topped up to
// it). Without, it pays only the writes.
type PrintModel struct {
	Endpoint string // DoPrint, DoPrintAsync or DontPrint; also the label
	Lines    int    // lines per request, 1..1,000,000
	Python   strategy.Python
	Costs    *Framework
}

var _ strategy.Strategy = PrintModel{}

// Label is the endpoint.
func (p PrintModel) Label() string { return p.Endpoint }

// Validate reports an unknown endpoint or a line count out of range.
func (p PrintModel) Validate() error {
	if _, err := PrintMode000(p.Endpoint); err != nil {
		return err
	}
	if p.Lines <= 0 || p.Lines > 1_000_000 {
		return fmt.Errorf("cpython: print model %q: Lines must be in 1..1000000, got %d", p.Endpoint, p.Lines)
	}
	return p.Python.Validate()
}

// Start opens the printer and starts the model server printing through it.
func (p PrintModel) Start(ctx context.Context, _ pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	mode, _ := PrintMode000(p.Endpoint)
	var sink *workload.Sink
	var err error
	if mode != workload.PrintNone {
		if sink, err = workload.OpenSink("pipe"); err != nil {
			return nil, fmt.Errorf("cpython: print model %q: %w", p.Endpoint, err)
		}
	}
	pr, err := workload.NewPrinter(mode, sink, 0)
	if err != nil {
		closeSink(sink)
		return nil, fmt.Errorf("cpython: print model %q: %w", p.Endpoint, err)
	}
	u := strategy.Uvicorn{Name: p.Endpoint, Async: true, Python: p.Python}
	w := pymodel.Workload{Name: "print " + fmt.Sprint(p.Lines) + " lines", Steps: p.steps(mode, pr)}
	if p.Costs != nil && u.Python.Framework.IsZero() {
		u.Python.Framework = p.Costs.Cost
	}
	srv, err := u.Start(ctx, w, o)
	if err != nil {
		pr.Close()
		closeSink(sink)
		return nil, err
	}
	return &printServer{Server: srv, printer: pr, sink: sink}, nil
}

// steps are the handler's: the Python side of the lines (with Costs), then
// the printing itself. The async writer's append is the whole of the
// Python side, and the model's own enqueue (a channel send per line) is
// already part of it: that step tops its CPU time up to Costs.AsyncLine a
// line rather than adding it.
func (p PrintModel) steps(mode string, pr *workload.Printer) []pymodel.Step {
	var out []pymodel.Step
	var line time.Duration
	switch {
	case p.Costs == nil:
	case mode == workload.PrintSync:
		line = p.Costs.PrintExtra()
	case mode == workload.PrintAsync && p.Costs.AsyncLine > 0:
		return []pymodel.Step{printAtLeast(pr, p.Lines, p.Endpoint+" line", p.Costs.AsyncLine*time.Duration(p.Lines))}
	}
	if line > 0 {
		s := pymodel.Burn(line * time.Duration(p.Lines))
		s.Name = "print (Python)"
		out = append(out, s)
	}
	return append(out, pymodel.Print(pr, p.Lines, p.Endpoint+" line"))
}

// printAtLeast is pymodel.Print's CPU step for an async printer that
// costs at least budget of thread CPU time holding the GIL: it enqueues the
// lines, then burns what the enqueueing left of budget.
func printAtLeast(pr *workload.Printer, lines int, line string, budget time.Duration) pymodel.Step {
	enqueue := pymodel.Print(pr, lines, line).Func
	return pymodel.Custom("print", false, func(ctx context.Context) error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		start, err := workload.ThreadCPUTime()
		if err != nil {
			return fmt.Errorf("cpython: print model: %w", err)
		}
		if err := enqueue(ctx); err != nil {
			return err
		}
		end, err := workload.ThreadCPUTime()
		if err != nil {
			return fmt.Errorf("cpython: print model: %w", err)
		}
		_, err = workload.BurnCPU(ctx, budget-(end-start))
		return err
	})
}

func closeSink(s *workload.Sink) {
	if s != nil {
		s.Close()
	}
}

// printServer closes the printer and its sink after the server.
type printServer struct {
	strategy.Server
	printer *workload.Printer
	sink    *workload.Sink
	closed  bool
	err     error
}

// InProcessCPU passes the model server's own CPU on to the generator's
// self-check.
func (s *printServer) InProcessCPU() time.Duration {
	if ip, ok := s.Server.(interface{ InProcessCPU() time.Duration }); ok {
		return ip.InProcessCPU()
	}
	return 0
}

func (s *printServer) Close() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	s.err = errors.Join(s.Server.Close(), s.printer.Close())
	if s.sink != nil {
		s.err = errors.Join(s.err, s.sink.Close())
	}
	return s.err
}

// Experiment000Print is source 000's print recap, model vs real: for each
// endpoint the model (PrintModel with costs) and the real app ("real
// /doPrint": App000Print printing lines lines per request, stdout to its
// log file), under vus closed VUs for duration with no think time. With
// costs (this machine's, MachineCalibration's Framework) the model pays
// the stack's and print()'s CPU as CPython does, and its figures should
// agree with the real ones; with nil it pays only its writes and only the
// order can agree (/doPrint the slowest).
func Experiment000Print(lines, vus int, duration time.Duration, costs *Framework, opts Options) bench.Experiment {
	e := bench.Experiment{
		Name: fmt.Sprintf("source 000 print: %d lines a request, %d VUs, %v, model vs real CPython", lines, vus, duration),
		Load: load.Closed{VUs: vus, Duration: duration},
	}
	for _, ep := range Endpoints000Print {
		e.Strategies = append(e.Strategies, PrintModel{Endpoint: ep, Lines: lines, Costs: costs},
			Real{Name: RealPrefix + ep, App: App000Print(lines), Endpoint: ep, Options: opts})
	}
	return e
}
