package s000print

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/workload"
)

// printMode is the bench/workload printer mode that models an endpoint: a
// write(2) per line, a buffered async writer, or nothing.
func printMode(path string) (string, error) {
	switch path {
	case DoPrint:
		return workload.PrintSync, nil
	case DoPrintAsync:
		return workload.PrintAsync, nil
	case DontPrint:
		return workload.PrintNone, nil
	}
	return "", fmt.Errorf("s000print: unknown endpoint %q (want one of %s)", path, strings.Join(Endpoints(), ", "))
}

// Endpoint is the model of one of the source's endpoints, a strategy: an
// async def handler on uvicorn printing Lines lines per request through a
// workload.Printer of the endpoint's mode to an unthrottled pipe — a
// write(2) per line on the event loop (print() under PYTHONUNBUFFERED=1 on
// the loop), a queue drained by one writer (the buffered async writer), or
// nothing. Each Start opens its own pipe and printer and the server's Close
// closes them; the Experiment's workload is ignored.
//
// With Costs (this machine's, CostsFrom), the model also pays what CPython
// does: the stack's own cost per request on the loop (Costs.Framework,
// unless Python.Framework is set) and, per line, what print() costs beyond
// its write(2) (sync, as CPU holding the GIL before the lines are printed)
// or the writer's append (async: the enqueue step's CPU time is topped up
// to it). Without, it pays only the writes.
type Endpoint struct {
	Path   string // DoPrint, DoPrintAsync or DontPrint; also the label
	Lines  int    // lines per request, 1..1,000,000
	Python strategy.Python
	Costs  *Costs
}

var _ strategy.Strategy = Endpoint{}

// Label is the endpoint.
func (p Endpoint) Label() string { return p.Path }

// Validate reports an unknown endpoint or a line count out of range.
func (p Endpoint) Validate() error {
	if _, err := printMode(p.Path); err != nil {
		return err
	}
	if p.Lines <= 0 || p.Lines > 1_000_000 {
		return fmt.Errorf("s000print: endpoint %q: Lines must be in 1..1000000, got %d", p.Path, p.Lines)
	}
	return p.Python.Validate()
}

// Start opens the printer and starts the model server printing through it.
func (p Endpoint) Start(ctx context.Context, _ pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	mode, _ := printMode(p.Path)
	var sink *workload.Sink
	var err error
	if mode != workload.PrintNone {
		if sink, err = workload.OpenSink("pipe"); err != nil {
			return nil, fmt.Errorf("s000print: endpoint %q: %w", p.Path, err)
		}
	}
	pr, err := workload.NewPrinter(mode, sink, 0)
	if err != nil {
		closeSink(sink)
		return nil, fmt.Errorf("s000print: endpoint %q: %w", p.Path, err)
	}
	u := strategy.Uvicorn{Name: p.Path, Async: true, Python: p.Python}
	w := pymodel.Workload{Name: "print " + fmt.Sprint(p.Lines) + " lines", Steps: p.steps(mode, pr)}
	if p.Costs != nil && u.Python.Framework.IsZero() {
		u.Python.Framework = p.Costs.Framework
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
func (p Endpoint) steps(mode string, pr *workload.Printer) []pymodel.Step {
	var out []pymodel.Step
	var line time.Duration
	switch {
	case p.Costs == nil:
	case mode == workload.PrintSync:
		line = p.Costs.PrintExtra()
	case mode == workload.PrintAsync && p.Costs.AsyncLine > 0:
		return []pymodel.Step{printAtLeast(pr, p.Lines, p.Path+" line", p.Costs.AsyncLine*time.Duration(p.Lines))}
	}
	if line > 0 {
		s := pymodel.Burn(line * time.Duration(p.Lines))
		s.Name = "print (Python)"
		out = append(out, s)
	}
	return append(out, pymodel.Print(pr, p.Lines, p.Path+" line"))
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
			return fmt.Errorf("s000print: endpoint: %w", err)
		}
		if err := enqueue(ctx); err != nil {
			return err
		}
		end, err := workload.ThreadCPUTime()
		if err != nil {
			return fmt.Errorf("s000print: endpoint: %w", err)
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
