// Package s000upload is source 000's main case, "I made it async; why
// isn't it faster?" (a book chapter): upload a 1.4 MB 8K JPEG, convert it
// to RGB, rotate it 180° four times, save it, insert its path into MySQL —
// four ways: a def handler (sync), an async def running the conversion on
// the event loop (asyncio), an async def sending both to a
// ThreadPoolExecutor (ThreadPool), and an async def sending the conversion
// to a ProcessPoolExecutor (ProcessPool). k6: 20 VUs for 10 s, each
// uploading then sleeping 1 s.
//
// The shape of every source package (see sources/s001): Files and Code
// (py/app000_upload.py), Knobs with the source's Default, the handler
// styles as literals (Knobs.Strategy), Experiment on the model with a
// machine's Costs (this machine's: CostsFrom a calibration; the source's
// laptop: SourceMachine) and Versus beside the real app, Estimate, Checks
// and Table. It registers the pipeline's costs with bench/calib (part
// "000 upload": each Pillow step's CPU and GIL share, the crowd, the
// insert), and measures what a process pool really moves (MeasureIPC).
package s000upload

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/sources/internal/knob"
)

//go:embed py/*.py
var py embed.FS

// Files are the source's Python files: app000_upload.py, gen_images.py
// (the test images), calibrate_image.py and ipc_bytes.py (the lab's
// measurements).
func Files() fs.FS {
	sub, _ := fs.Sub(py, "py")
	return sub
}

// Code returns one of Files' texts ("app000_upload.py").
func Code(name string) (string, error) { return cpython.Code(Files(), name) }

// The handler styles, by the source's names.
const (
	Sync        = "sync"        // def upload_sync(): on AnyIO's threads
	AsyncIO     = "asyncio"     // async def + gather(convert_image_async(), insert_async()): CPU on the loop
	ThreadPool  = "ThreadPool"  // async def + run_in_executor(thread_executor, ...) twice
	ProcessPool = "ProcessPool" // async def + run_in_executor(process_executor, convert), then a sync insert
)

// Strategies lists the styles in the source's order.
func Strategies() []string { return []string{Sync, AsyncIO, ThreadPool, ProcessPool} }

// Paths are the real app's endpoints by style.
var Paths = map[string]string{
	Sync: "/commiter/upload_sync", AsyncIO: "/commiter/upload_asyncio",
	ThreadPool: "/commiter/upload_threadpool", ProcessPool: "/commiter/upload_processpool",
}

// Knobs are the experiment's settings. Default is the source's.
type Knobs struct {
	// VUs, Duration and Think are k6's (the source: 20 VUs, 10 s,
	// sleep(1)); Iterations, if positive, also stops each VU after that
	// many uploads (k6's per-vu-iterations), whichever comes first.
	VUs        int
	Duration   time.Duration
	Think      time.Duration
	Iterations int
	// Image is the uploaded JPEG's size (zero: the source's 8K); Small
	// uploads the source's 7 KB PNG instead (its model then needs costs
	// measured on it: Measure{Path: ...}).
	Image ImageSize
	Small bool
	// CPUs is the modelled os.cpu_count(), which sizes the executors (0:
	// the costs' machine's).
	CPUs int
	// ThreadWorkers and ProcessWorkers size the app's executors (0:
	// Python's defaults, min(32, CPUs + 4) threads and CPUs processes); the
	// real app is given the same.
	ThreadWorkers, ProcessWorkers int
	// Payload is the bytes a conversion sends to a process-pool worker and
	// back (0: 256; MeasureIPC measures the real app's: its two paths, a
	// few hundred bytes).
	Payload int
	// Strategies are the rows (nil: the source's four).
	Strategies []string
}

// Default is the source's: 20 VUs for 10 s, 1 s think, the 8K image.
var Default = Knobs{VUs: 20, Duration: 10 * time.Second, Think: time.Second}

// pkg names this package in errors.
const pkg = "s000upload"

// Validate reports a knob out of range, naming it as the lesson's
// parameters cell does (vus, think, duration, cpus, threadWorkers,
// processWorkers): a *knob.Error.
func (k Knobs) Validate() error {
	err := knob.First(
		knob.Want(pkg, "vus", k.VUs >= 1 && k.VUs <= 1000, "in 1..1000", k.VUs),
		knob.Want(pkg, "think", k.Think >= 0 && k.Think <= time.Minute, "in 0..1m", k.Think),
		knob.Want(pkg, "duration", k.Duration > 0 && k.Duration <= time.Hour, "in (0, 1h]", k.Duration),
		knob.Want(pkg, "cpus", k.CPUs >= 0 && k.CPUs <= 1024, "in 0..1024 (0: the machine's)", k.CPUs),
		knob.Want(pkg, "threadWorkers", k.ThreadWorkers >= 0 && k.ThreadWorkers <= 1024, "in 0..1024 (0: Python's default)", k.ThreadWorkers),
		knob.Want(pkg, "processWorkers", k.ProcessWorkers >= 0 && k.ProcessWorkers <= 256, "in 0..256 (0: one per CPU)", k.ProcessWorkers),
	)
	if err != nil {
		return err
	}
	if k.Payload < 0 || k.Iterations < 0 {
		return fmt.Errorf("s000upload: Payload and Iterations must not be negative, got %d and %d", k.Payload, k.Iterations)
	}
	for _, s := range k.strategies() {
		if _, ok := Paths[s]; !ok {
			return fmt.Errorf("s000upload: unknown strategy %q (want one of %v)", s, Strategies())
		}
	}
	return nil
}

func (k Knobs) strategies() []string {
	if k.Strategies == nil {
		return Strategies()
	}
	return k.Strategies
}

// Strategy is one handler style's model on a machine of cpus CPUs, a
// literal of its Python (the registry's preset of the same name, sized):
//
//	def upload_sync(file):                    convert_image(...); insert(...)
//	async def upload_asyncio(file):           await gather(convert_image_async(...), insert_async(...))
//	async def upload_threadpool(file):        await run_in_executor(thread_executor, convert_image, ...) x2
//	async def upload_processpool(file):       await run_in_executor(process_executor, convert_image, ...); insert(...)
func (k Knobs) Strategy(name string, cpus int) (strategy.Uvicorn, error) {
	py := strategy.Python{CPUs: cpus, ThreadExecutor: k.ThreadWorkers, ProcessWorkers: k.ProcessWorkers}
	switch name {
	case Sync:
		return strategy.Uvicorn{Name: Sync, Python: py}, nil
	case AsyncIO:
		return strategy.Uvicorn{Name: AsyncIO, Async: true, IOCall: pymodel.Await, Python: py}, nil
	case ThreadPool:
		return strategy.Uvicorn{Name: ThreadPool, Async: true, CPUCall: pymodel.ThreadExecutor, IOCall: pymodel.ThreadExecutor, Python: py}, nil
	case ProcessPool:
		return strategy.Uvicorn{Name: ProcessPool, Async: true, CPUCall: pymodel.ProcessExecutor, IOCall: pymodel.Block, Python: py}, nil
	}
	return strategy.Uvicorn{}, fmt.Errorf("s000upload: unknown strategy %q (want one of %v)", name, Strategies())
}

// Workload is every style's body on the model with costs c: the
// conversion (ConvertImage), then the insert — how each is called is the
// style's (Strategy's CPUCall and IOCall).
func (k Knobs) Workload(c *Costs) pymodel.Workload {
	payload := k.Payload
	if payload == 0 {
		payload = 256
	}
	return pymodel.Workload{Name: "convert_image + insert", Steps: []pymodel.Step{c.ConvertImage(payload), c.InsertStep()}}
}

// Load is k6's closed VUs with think time.
func (k Knobs) Load() load.Closed {
	return load.Closed{VUs: k.VUs, Duration: k.Duration, Iterations: k.Iterations, Think: k.Think}
}

// NoSlowCallbackWarnings is the models' loop.slow_callback_duration in
// the lessons' sources (strategy.Python.SlowCallback, negative: none).
// asyncio reports a callback that held the loop 100 ms or more only in
// debug mode (PYTHONASYNCIODEBUG=1, -X dev), which the real apps do not
// run in: their models do not either, so a run's warnings — and a lesson's
// try-it output — carry no "Executing <Task …> took 0.1 seconds" lines.
// How long the loop was held is the loop_blocked_ms and
// loop_blocked_max_ms columns.
const NoSlowCallbackWarnings = -1

// Experiment is the source's run on the model with costs c (this
// machine's, CostsFrom; the source's laptop, SourceMachine): each style
// under k6's closed VUs, paying c's framework cost. The requests carry no
// file: the model's costs are c's.
func (k Knobs) Experiment(c *Costs) (bench.Experiment, error) {
	if err := k.Validate(); err != nil {
		return bench.Experiment{}, err
	}
	if c == nil {
		return bench.Experiment{}, fmt.Errorf("s000upload: Experiment: no costs (CostsFrom a calibration, or SourceMachine)")
	}
	cpus := k.CPUs
	if cpus == 0 {
		cpus = c.CPUs
	}
	e := bench.Experiment{
		Name:     fmt.Sprintf("source 000 upload on the model of %s: %d VUs, %v, think %v", c.Machine, k.VUs, k.Duration, k.Think),
		Workload: k.Workload(c),
		Load:     k.Load(),
		Pause:    300 * time.Millisecond, // the last run's worker processes go
	}
	for _, name := range k.strategies() {
		s, _ := k.Strategy(name, cpus)
		s.Python.Framework = c.Framework
		s.Python.SlowCallback = NoSlowCallbackWarnings
		e.Strategies = append(e.Strategies, s)
	}
	return e, nil
}

// App is the real app under uvicorn (its four /commiter/upload_*
// endpoints and /health), inserting into db (nil: SQLite), its executors
// sized as the knobs say.
func (k Knobs) App(db *cpython.DB) cpython.App {
	if db == nil {
		db = &cpython.DB{}
	}
	env := map[string]string{}
	if k.ThreadWorkers > 0 {
		env["CONCLAB_THREAD_WORKERS"] = strconv.Itoa(k.ThreadWorkers)
	}
	if k.ProcessWorkers > 0 {
		env["CONCLAB_PROCESS_WORKERS"] = strconv.Itoa(k.ProcessWorkers)
	}
	return cpython.App{Name: "uvicorn", Files: Files(), Module: "app000_upload:app", Server: cpython.Uvicorn, Env: env, DB: db,
		Requires: append(append([]string(nil), cpython.FastAPIModules...), "PIL", "multipart", "pymysql", "aiomysql")}
}

// Versus is Experiment (this machine's costs c) with each style's real app
// beside its model ("sync", "real sync", ...), every VU posting the same
// image file as a multipart upload (load.Target Files), for
// lab.ModelVsReal. The model's CPUs are this machine's.
func (k Knobs) Versus(ctx context.Context, c *Costs, db *cpython.DB, o cpython.Options) (bench.Experiment, error) {
	img, err := Image(ctx, o, k.Image, k.Small)
	if err != nil {
		return bench.Experiment{}, err
	}
	e, err := k.Experiment(c)
	if err != nil {
		return bench.Experiment{}, err
	}
	e.Name = fmt.Sprintf("source 000 upload: %d VUs, %v, think %v, model vs real CPython", k.VUs, k.Duration, k.Think)
	e.Request = load.Target{Files: []load.File{{Field: "file", Path: img}}}
	e.Pause = time.Second // the last run's processes and page cache settle
	models := e.Strategies
	e.Strategies = nil
	app := k.App(db)
	for i, name := range k.strategies() {
		e.Strategies = append(e.Strategies, models[i], cpython.Real{Name: cpython.RealPrefix + name, App: app, Endpoint: Paths[name], Options: o})
	}
	return e, nil
}

// parallel is how many conversions a style runs at once on cpus cores:
// one on the loop for asyncio; for the others as many as their pool
// allows and the cores hold, less the share of each that holds the GIL.
func (k Knobs) parallel(name string, c *Costs, cpus int) float64 {
	threads := pymodel.DefaultLimiter
	switch name {
	case AsyncIO:
		return 1
	case ThreadPool:
		threads = pymodel.DefaultExecutorSize(cpus)
		if k.ThreadWorkers > 0 {
			threads = k.ThreadWorkers
		}
	case ProcessPool:
		p := cpus
		if k.ProcessWorkers > 0 {
			p = k.ProcessWorkers
		}
		return float64(max(1, min(p, cpus)))
	}
	at := float64(min(threads, k.VUs, cpus))
	// Under one GIL the held share runs one at a time: at most 1/h at once.
	if h := c.GILHeld(); h > 0 {
		at = math.Min(at, 1/h)
	}
	return math.Max(1, at)
}

// Estimate is the closed loop's arithmetic for each style with costs c:
// strategy, service_ms (S, a conversion and an insert), at_once (how many
// conversions the style runs at once, c), then for VUs N thinking Z: R ≈
// S unsaturated, R ≈ N·S/c − Z once N·S/c > Z + S (avg_ms), and X = N /
// (R + Z) (rps). Its own figures — the crowd, the loop's turns, the
// spooling — are what a run adds.
func (k Knobs) Estimate(c *Costs) *frame.Frame {
	cpus := k.CPUs
	if cpus == 0 {
		cpus = c.CPUs
	}
	f := frame.Of(fmt.Sprintf("source 000 upload estimated on %s: %d VUs, think %v", c.Machine, k.VUs, k.Think), "strategy", "service_ms", "at_once", "avg_ms", "rps")
	n, z := float64(k.VUs), k.Think.Seconds()
	for _, name := range k.strategies() {
		s := (c.Image() + c.Insert + c.Framework.Loop).Seconds()
		par := k.parallel(name, c, cpus)
		r := s
		if n*s/par > z+s {
			r = n*s/par - z
		}
		f.MustAppend(frame.Row{"strategy": name, "service_ms": s * 1000, "at_once": par, "avg_ms": r * 1000, "rps": n / (r + z)})
	}
	return f
}

// Table is the source's figures (k6, 20 VUs, 10 s, sleep(1)): strategy,
// avg_ms, p95_ms, rps, and think_s, the think time each row implies by
// Little's law (Z = N / X − R: about the script's 1 s on every row).
func Table() *frame.Frame {
	f := frame.Of("source 000: 8K JPEG upload, k6 20 VUs, sleep(1)", "strategy", "avg_ms", "p95_ms", "rps", "think_s")
	for _, r := range []frame.Row{
		{"strategy": Sync, "avg_ms": 257.0, "p95_ms": 404.0, "rps": 15.7},
		{"strategy": AsyncIO, "avg_ms": 1420.0, "p95_ms": 1440.0, "rps": 8.2},
		{"strategy": ThreadPool, "avg_ms": 215.0, "p95_ms": 347.0, "rps": 16.1},
		{"strategy": ProcessPool, "avg_ms": 313.0, "p95_ms": 570.0, "rps": 14.9},
	} {
		r["think_s"] = 20/r.Float("rps") - r.Float("avg_ms")/1000
		f.MustAppend(r)
	}
	return f
}

// IPC is what a process pool really moves per conversion, and what else
// it costs (MeasureIPC): the four causes a lesson weighs against "the IPC
// overhead".
type IPC struct {
	// Out and In are the bytes the parent writes to the pool's pipes and
	// reads back per call: the pickled call (convert_image by reference,
	// two path strings) and result (the output path), with the executor's
	// own wake-up bytes.
	Out, In float64
	// PathChars is the two paths' length.
	PathChars int
	// First is the first conversion through a fresh pool (fork: the pool
	// forks its workers at that submit); Warm the median of later ones;
	// Inline the median conversion with no pool.
	First, Warm, Inline time.Duration
	// Empty is the median round trip of an empty call (os.getpid) through
	// the pool: the pickling, the pipes and the wake-ups alone.
	Empty time.Duration
	// SpawnFirst is the first conversion through a fresh one-worker pool
	// that spawns (macOS's default start method, the source's system: a
	// new interpreter importing the app and Pillow), SpawnWarm later ones.
	SpawnFirst, SpawnWarm time.Duration
	// Insert is the median insert_sync: what the ProcessPool handler
	// blocks the event loop for after each conversion (SQLite here).
	Insert time.Duration
}

// MeasureIPC runs the app's run_in_executor(process_executor,
// convert_image, path, out) n times on the small test image and counts the
// bytes through the pool's pipes (py/ipc_bytes.py): a few hundred bytes a
// call — the image itself never crosses, only its paths. It also times
// the other causes (IPC's durations): a fresh worker's first conversion
// (fork, and spawn) against later ones and against none, an empty call's
// round trip, and the insert the handler runs on the loop.
func MeasureIPC(ctx context.Context, o cpython.Options, n int) (IPC, error) {
	if n < 1 || n > 1000 {
		return IPC{}, fmt.Errorf("s000upload: MeasureIPC: n must be in 1..1000, got %d", n)
	}
	img, err := Image(ctx, o, ImageSize{}, true)
	if err != nil {
		return IPC{}, err
	}
	var r struct {
		Out        float64 `json:"bytes_out"`
		In         float64 `json:"bytes_in"`
		PathChars  int     `json:"path_chars"`
		First      float64 `json:"first_ms"`
		Warm       float64 `json:"warm_ms"`
		Inline     float64 `json:"inline_ms"`
		Empty      float64 `json:"empty_ms"`
		SpawnFirst float64 `json:"spawn_first_ms"`
		SpawnWarm  float64 `json:"spawn_warm_ms"`
		Insert     float64 `json:"insert_ms"`
	}
	err = cpython.Script{Files: Files(), Name: "ipc_bytes.py", DB: &cpython.DB{}, Requires: []string{"PIL", "fastapi", "multipart"},
		Args: []string{"--image", img, "--n", strconv.Itoa(n), "--out-dir", "."}}.Run(ctx, o, &r)
	if err != nil {
		return IPC{}, err
	}
	if r.Out <= 0 || r.In <= 0 || r.First <= 0 || r.Warm <= 0 || r.Empty <= 0 || r.SpawnFirst <= 0 || r.Insert <= 0 {
		return IPC{}, fmt.Errorf("s000upload: ipc_bytes.py measured %+v", r)
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return IPC{Out: r.Out, In: r.In, PathChars: r.PathChars, First: ms(r.First), Warm: ms(r.Warm), Inline: ms(r.Inline),
		Empty: ms(r.Empty), SpawnFirst: ms(r.SpawnFirst), SpawnWarm: ms(r.SpawnWarm), Insert: ms(r.Insert)}, nil
}
