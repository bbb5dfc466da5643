// Package s000print is source 000's recap of its previous chapter, print()
// per request: FastAPI under uvicorn with PYTHONUNBUFFERED=1, k6 with 100
// VUs for 10 s against /doPrint (print() in an async def handler: the
// writes block the event loop), /doPrintAsync (a buffered async writer)
// and /dontPrint.
//
// The shape of every source package (see sources/s001): Files and Code
// (py/app000_print.py), Knobs with the source's Default, the models
// (Endpoint, a strategy printing through a real pipe), Experiment and
// Versus, Estimate (a closed loop's arithmetic), Checks, Table, and
// ImpliedThink (the think time the source's figures imply by Little's
// law). It registers print()'s costs with bench/calib (part "000 print")
// and measures how many write(2)s a print() makes (MeasureWrites).
package s000print

import (
	"embed"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/sources/internal/knob"
)

//go:embed py/*.py
var py embed.FS

// Files are the source's Python files: app000_print.py and
// calibrate_print.py (the lab's measurement of print()'s cost).
func Files() fs.FS {
	sub, _ := fs.Sub(py, "py")
	return sub
}

// Code returns one of Files' texts ("app000_print.py").
func Code(name string) (string, error) { return cpython.Code(Files(), name) }

// The endpoints, in the source's order.
const (
	DoPrint      = "/doPrint"      // print() per line: two write(2)s each, on the loop
	DoPrintAsync = "/doPrintAsync" // a buffered async writer: one write per batch, off the loop
	DontPrint    = "/dontPrint"    // no print
)

// Endpoints lists the endpoints in the source's order.
func Endpoints() []string { return []string{DoPrint, DoPrintAsync, DontPrint} }

// Knobs are the experiment's settings. Default is the source's.
type Knobs struct {
	// VUs, Duration and Think are k6's: closed virtual users, each
	// sending a request, waiting for it, then thinking Think (the source:
	// 100 VUs, 10 s; its script is not shown, but its figures imply about
	// 1 s of think time per iteration: ImpliedThink).
	VUs      int
	Duration time.Duration
	Think    time.Duration
	// Lines is how many lines a request prints. The source prints one
	// line per request to a terminal, whose slowness is what made it
	// expensive (its /doPrint served 29 req/s: about 34 ms of the loop a
	// request); into a pipe or a file a line costs microseconds, so the
	// lab prints many — 10,000 cost about 25 ms here — to stand in for
	// the terminal.
	Lines int
	// CPUs is the modelled os.cpu_count() (0: this machine's).
	CPUs int
	// Destination is where the app's stdout goes, model and real alike:
	// File (also ""), DevNull, or SlowPipe, a pipe whose reader takes
	// PipeRate bytes a second (a terminal that cannot keep up: once the
	// pipe's buffer is full every write waits for the reader).
	Destination string
	PipeRate    int
	// Endpoints are the rows (nil: the source's three).
	Endpoints []string
}

// The destinations of the app's stdout (Knobs.Destination).
const (
	File     = "file"      // a file on disk: a write is a copy into the page cache
	DevNull  = "devnull"   // /dev/null: the kernel discards the bytes
	SlowPipe = "slow-pipe" // a pipe read at PipeRate bytes a second
)

// Destinations lists them.
func Destinations() []string { return []string{File, DevNull, SlowPipe} }

// Default is the source's load (100 VUs, 10 s, 1 s think) with 10,000
// lines a request.
var Default = Knobs{VUs: 100, Duration: 10 * time.Second, Think: time.Second, Lines: 10_000}

// pkg names this package in errors.
const pkg = "s000print"

// Validate reports a knob out of range, naming it as the lesson's
// parameters cell does (vus, think, duration, lines, destination,
// pipeRate; cpus for CPUs): a *knob.Error.
func (k Knobs) Validate() error {
	d := k.destination()
	err := knob.First(
		knob.Want(pkg, "vus", k.VUs >= 1 && k.VUs <= 10000, "in 1..10000", k.VUs),
		knob.Want(pkg, "think", k.Think >= 0 && k.Think <= time.Minute, "in 0..1m", k.Think),
		knob.Want(pkg, "duration", k.Duration > 0 && k.Duration <= time.Hour, "in (0, 1h]", k.Duration),
		knob.Want(pkg, "lines", k.Lines >= 1 && k.Lines <= 1_000_000, "in 1..1000000", k.Lines),
		knob.Want(pkg, "destination", d == File || d == DevNull || d == SlowPipe, "one of "+strings.Join(Destinations(), ", "), k.Destination),
		knob.Want(pkg, "pipeRate", d != SlowPipe || (k.PipeRate >= 1 && k.PipeRate <= 1_000_000_000), "in 1..1000000000 bytes/s for the slow pipe", k.PipeRate),
		knob.Want(pkg, "cpus", k.CPUs >= 0, "0 (this machine's) or more", k.CPUs),
	)
	if err != nil {
		return err
	}
	for _, ep := range k.Endpoints {
		if _, err := printMode(ep); err != nil {
			return err
		}
	}
	return nil
}

func (k Knobs) destination() string {
	if k.Destination == "" {
		return File
	}
	return k.Destination
}

func (k Knobs) endpoints() []string {
	if k.Endpoints == nil {
		return Endpoints()
	}
	return k.Endpoints
}

// sink is the model's workload sink spec for the destination.
func (k Knobs) sink() string {
	switch k.destination() {
	case DevNull:
		return "devnull"
	case SlowPipe:
		return fmt.Sprintf("%s:%d", SlowPipe, k.PipeRate)
	}
	return File
}

// Load is k6's closed VUs with think time.
func (k Knobs) Load() load.Closed {
	return load.Closed{VUs: k.VUs, Duration: k.Duration, Think: k.Think}
}

// Endpoint is the model of an endpoint with these knobs, paying costs
// (nil: only its own writes).
func (k Knobs) Endpoint(path string, costs *Costs) Endpoint {
	return Endpoint{Path: path, Lines: k.Lines, Sink: k.sink(), Python: strategy.Python{CPUs: k.CPUs}, Costs: costs}
}

// Experiment is the source's run on the model: every endpoint under k6's
// closed VUs, paying costs (nil: none — the order holds, the figures do
// not: CPython spends more per request than the model's Go). Knobs out of
// range give an experiment whose strategies fail to start, naming the
// knob (bench.Run returns that error); check with Validate first.
func (k Knobs) Experiment(costs *Costs) bench.Experiment {
	e := bench.Experiment{
		Name: fmt.Sprintf("source 000 print: %d lines a request to %s, %d VUs, %v, think %v", k.Lines, k.destination(), k.VUs, k.Duration, k.Think),
		Load: k.Load(),
	}
	if err := k.Validate(); err != nil {
		e.Strategies = []strategy.Strategy{invalid{err}}
		return e
	}
	if k.destination() == SlowPipe {
		// Requests stuck behind a full pipe at the end are cut off after
		// 2 s (interrupted), not waited for the default 10 s.
		e.Options.GracefulStop = 2 * time.Second
	}
	for _, ep := range k.endpoints() {
		e.Strategies = append(e.Strategies, k.Endpoint(ep, costs))
	}
	return e
}

// App is the source's real app under uvicorn, printing Lines lines a
// request (?lines= overrides), stdout its log file, /dev/null or a pipe
// read by a slow reader process (CONCLAB_PRINT_DEST) as Destination says.
func (k Knobs) App() cpython.App {
	env := map[string]string{"CONCLAB_PRINT_LINES": strconv.Itoa(k.Lines)}
	switch k.destination() {
	case DevNull:
		env["CONCLAB_PRINT_DEST"] = DevNull
	case SlowPipe:
		env["CONCLAB_PRINT_DEST"] = fmt.Sprintf("%s:%d", SlowPipe, k.PipeRate)
	}
	return cpython.App{
		Name: "uvicorn", Files: Files(), Module: "app000_print:app", Server: cpython.Uvicorn,
		Env: env, Requires: cpython.FastAPIModules,
	}
}

// Versus is Experiment with each endpoint's real app beside its model
// ("/doPrint", "real /doPrint", ...), for lab.ModelVsReal. With costs
// (this machine's, CostsFrom) the model pays what CPython does and its
// figures should agree with the real ones; with nil only the order.
func (k Knobs) Versus(costs *Costs, o cpython.Options) bench.Experiment {
	e := k.Experiment(costs)
	e.Name += ", model vs real CPython"
	if k.Validate() != nil {
		return e
	}
	e.Strategies = nil
	for _, ep := range k.endpoints() {
		e.Strategies = append(e.Strategies, k.Endpoint(ep, costs),
			cpython.Real{Name: cpython.RealPrefix + ep, App: k.App(), Endpoint: ep, Options: o})
	}
	return e
}

// Service is an endpoint's time on the event loop per request: the
// stack's own (costs' Loop) plus its lines (print() each for /doPrint, the
// writer's append for /doPrintAsync, none for /dontPrint). Into the slow
// pipe, /doPrint's loop also waits for the reader: once the pipe's buffer
// is full a request's lines take their bytes / PipeRate, and S is the
// larger of the two (the costs were measured into a file; /dev/null is a
// little cheaper).
func (k Knobs) Service(path string, c Costs) time.Duration {
	s := c.Framework.Loop
	switch path {
	case DoPrint:
		s += time.Duration(k.Lines) * c.PrintLine
		if k.destination() == SlowPipe && k.PipeRate > 0 {
			s = max(s, time.Duration(float64(RequestBytes(DoPrint, k.Lines))/float64(k.PipeRate)*float64(time.Second)))
		}
	case DoPrintAsync:
		s += time.Duration(k.Lines) * c.AsyncLine
	}
	return s
}

// RequestBytes is what one request to the real app's endpoint prints:
// lines lines "doPrint line 0\n", "doPrint line 1\n", ... (0 for
// /dontPrint).
func RequestBytes(path string, lines int) int {
	prefix := 0
	switch path {
	case DoPrint:
		prefix = len("doPrint line \n")
	case DoPrintAsync:
		prefix = len("doPrintAsync line \n")
	default:
		return 0
	}
	n := prefix * lines
	for d, lo, hi := 1, 0, 10; lo < lines; d, lo, hi = d+1, hi, hi*10 {
		n += d * (min(lines, hi) - lo) // the numbers of d digits
	}
	return n
}

// Estimate is the closed loop's arithmetic for each endpoint with costs:
// strategy, service_ms (S, the loop's time a request, Service), then
// Little's law for VUs N thinking Z: unsaturated, R ≈ S and X = N / (Z +
// S); once N·S > Z + S the one loop is the bottleneck, X ≈ 1 / S and R ≈
// N·S − Z (avg_ms, rps, saturated 1 or 0).
//
// Nil costs count only what the knobs give (the slow pipe's wait).
func (k Knobs) Estimate(costs *Costs) *frame.Frame {
	var c Costs
	if costs != nil {
		c = *costs
	}
	f := frame.Of(fmt.Sprintf("source 000 print estimated: %d VUs, think %v, %d lines", k.VUs, k.Think, k.Lines), "strategy", "service_ms", "avg_ms", "rps", "saturated")
	n, z := float64(k.VUs), k.Think.Seconds()
	for _, ep := range k.endpoints() {
		s := k.Service(ep, c).Seconds()
		r, x, sat := s, n/(z+s), n*s > z+s
		if sat {
			r, x = n*s-z, 1/s
		}
		if s <= 0 {
			r, x = 0, math.Inf(1)
		}
		f.MustAppend(frame.Row{"strategy": ep, "service_ms": s * 1000, "avg_ms": r * 1000, "rps": x, "saturated": sat})
	}
	return f
}

// Table is the source's figures (k6, 100 VUs, 10 s): strategy, avg_ms,
// rps, rps_vs_none (over /dontPrint's), and the think time the source does
// not state: think_s, inferred from the row by Little's law (ImpliedThink),
// and think, saying so.
func Table() *frame.Frame {
	f := frame.Of("source 000 print: k6 100 VUs, 10 s (think time not stated: inferred)", "strategy", "avg_ms", "rps", "rps_vs_none", "think_s", "think")
	for _, r := range []frame.Row{
		{"strategy": DoPrint, "avg_ms": 2160.0, "rps": 29.0, "rps_vs_none": 29.0 / 98},
		{"strategy": DoPrintAsync, "avg_ms": 411.0, "rps": 70.8, "rps_vs_none": 70.8 / 98},
		{"strategy": DontPrint, "avg_ms": 15.4, "rps": 98.0, "rps_vs_none": 1.0},
	} {
		r["think_s"] = littleZ(100, r.Float("rps"), r.Float("avg_ms")/1000)
		r["think"] = "inferred: Z = N/X − R"
		f.MustAppend(r)
	}
	return f
}

// littleZ is Little's law for a closed loop solved for the think time:
// N = X (R + Z), so Z = N / X − R.
func littleZ(n, x, r float64) float64 { return n/x - r }

// ImpliedThink is the think time the source's figures imply by Little's
// law for a closed loop — N = X (R + Z), so Z = N / X − R — for each row
// of Table at its 100 VUs: strategy, vus, rps, avg_ms, think_s.
// /dontPrint and /doPrintAsync give 1.0 s, as the upload script's
// sleep(1) does (/doPrint 1.3 s: 100/29 − 2.16); with no think time 100
// VUs at 15.4 ms would have made about 6,500 req/s, not 98.
func ImpliedThink() *frame.Frame {
	t := Table()
	f := frame.Of("source 000 print: think time implied by Little's law (Z = N/X − R)", "strategy", "vus", "rps", "avg_ms", "think_s", "no_think_rps")
	for _, r := range t.Rows() {
		x, rt := r.Float("rps"), r.Float("avg_ms")/1000
		f.MustAppend(frame.Row{"strategy": r.Text("strategy"), "vus": 100, "rps": x, "avg_ms": rt * 1000, "think_s": littleZ(100, x, rt), "no_think_rps": 100 / rt})
	}
	return f
}
