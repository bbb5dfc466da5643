package s000print

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
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
// workload.Printer of the endpoint's mode to its Sink — a
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
	Path  string // DoPrint, DoPrintAsync or DontPrint; also the label
	Lines int    // lines per request, 1..1,000,000
	// Sink is where the lines go: "file" (a temporary file, removed at
	// Close), "slow-pipe:RATE" (a pipe of PipeBuffer bytes read at RATE
	// bytes a second, as the real app's slow pipe) or a
	// workload.OpenSink spec ("devnull", "pipe", "pipe:40000B/s"); "" is
	// "pipe", a pipe read as fast as it is written.
	Sink   string
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
	var sink *fileSink
	var err error
	if mode != workload.PrintNone {
		if sink, err = openSink(p.Sink); err != nil {
			return nil, fmt.Errorf("s000print: endpoint %q: %w", p.Path, err)
		}
	}
	var ws *workload.Sink
	if sink != nil {
		ws = sink.Sink
	}
	pr, err := workload.NewPrinter(mode, ws, 0)
	if err != nil {
		closeSink(sink)
		return nil, fmt.Errorf("s000print: endpoint %q: %w", p.Path, err)
	}
	u := strategy.Uvicorn{Name: p.Path, Async: true, Python: p.Python}
	w := pymodel.Workload{Name: "print " + fmt.Sprint(p.Lines) + " lines", Steps: p.steps(mode, pr)}
	if u.Python.SlowCallback == 0 {
		u.Python.SlowCallback = -1 // no asyncio debug mode, as the real app: no slow-callback warnings
	}
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

func closeSink(s *fileSink) {
	if s != nil {
		s.Close()
	}
}

// fileSink is a workload.Sink and the temporary file it writes, if any.
type fileSink struct {
	*workload.Sink
	path string
}

// Close closes the sink and removes its temporary file.
func (s *fileSink) Close() error {
	err := s.Sink.Close()
	if s.path != "" {
		err = errors.Join(err, os.Remove(s.path))
	}
	return err
}

// openSink opens spec ("" a fast pipe; "file" a fresh temporary file).
func openSink(spec string) (*fileSink, error) {
	switch spec {
	case "":
		spec = "pipe"
	case "file":
		f, err := os.CreateTemp("", "conclab-print-*.log")
		if err != nil {
			return nil, err
		}
		f.Close()
		s, err := workload.OpenFileSink(f.Name())
		if err != nil {
			os.Remove(f.Name())
			return nil, err
		}
		return &fileSink{Sink: s, path: f.Name()}, nil
	}
	if r, ok := strings.CutPrefix(spec, SlowPipe+":"); ok {
		rate, err := strconv.Atoi(r)
		if err != nil || rate < 1 {
			return nil, fmt.Errorf("slow pipe %q: want slow-pipe:BYTES_PER_SECOND", spec)
		}
		s, err := workload.NewPipeSink(float64(rate), 0, PipeBuffer)
		if err != nil {
			return nil, err
		}
		return &fileSink{Sink: s}, nil
	}
	s, err := workload.OpenSink(spec)
	if err != nil {
		return nil, err
	}
	return &fileSink{Sink: s}, nil
}

// PipeBuffer is the slow pipe's buffer, model and real (F_SETPIPE_SZ): a
// page, 4 KiB, as a Linux terminal's line discipline holds, rather than a
// pipe's default 64 KiB — so the reader's pace is felt within a second.
const PipeBuffer = 4096

// invalid is an experiment's one strategy when its knobs are out of
// range: it fails to start with the knob's error, so a run says which.
type invalid struct{ err error }

func (s invalid) Label() string   { return "invalid knobs" }
func (s invalid) Validate() error { return s.err }
func (s invalid) Start(context.Context, pymodel.Workload, strategy.StartOptions) (strategy.Server, error) {
	return nil, s.err
}

// printServer closes the printer and its sink after the server.
type printServer struct {
	strategy.Server
	printer *workload.Printer
	sink    *fileSink
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
