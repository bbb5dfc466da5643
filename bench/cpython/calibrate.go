package cpython

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/pymodel"
)

// CalibrateOptions tune Calibrate. The zero value measures the source's 8K
// image, sum of squares of 1,000,000, SQLite inserts, 3 repeats.
type CalibrateOptions struct {
	Python string
	// ImageSize is the generated image's size (zero: 7680 x 4320).
	ImageSize ImageSize
	// N is the sum-of-squares bound timed (0: 1,000,000; costs scale
	// linearly, see Calibration.SumSquaresCost).
	N int
	// Repeat is how many runs each median is taken over (0: 3).
	Repeat int
	// Inserts is how many inserts are timed (0: 50).
	Inserts int
	// DB is the database timed (nil: SQLite).
	DB *DB
}

// Calibration holds real per-step costs measured on this machine's CPython
// (or stated for another machine, see SourceMachine). Its methods build
// bench/pymodel steps that burn the same CPU time, holding or releasing the
// GIL as the real code does, so the model runs this machine's costs.
type Calibration struct {
	Machine string // "this machine" or a description
	CPUs    int
	Python  string // e.g. "CPython 3.11.2"

	// Image is the CPU time of one source-000 convert pipeline (open,
	// convert, rotate x4, save) on an ImageWidth x ImageHeight image of
	// ImageBytes. CPU steps are measured in CPU time, as the model burns
	// CPU time, so other processes on a shared machine do not skew them.
	Image                   time.Duration
	ImageWidth, ImageHeight int
	ImageBytes              int
	// ImageGILHeld is the share (0..1) of Image during which Pillow holds
	// the GIL; the rest runs with the GIL released.
	ImageGILHeld float64
	// ImageContended is the pipeline's time with a pure-Python thread
	// competing for the GIL beside it (the convoy effect).
	ImageContended time.Duration

	// SumSquares is the CPU time of source 003's sum of squares of
	// SumSquaresN, pure Python (holds the GIL throughout).
	SumSquares  time.Duration
	SumSquaresN int
	// SumSquaresThreaded is the wall time per call when 10 threads of one
	// process compute it at once; above SumSquares it is the GIL's
	// hand-off cost between threads, which the model does not charge.
	SumSquaresThreaded time.Duration

	// Insert is the wall time of one committed INSERT into DBKind
	// ("sqlite" or "mysql"); the model waits it as I/O.
	Insert time.Duration
	DBKind string

	// Framework is the server stacks' own cost per request and print()'s
	// per line (MeasureFramework); nil when not measured.
	Framework *Framework `json:",omitempty"`
}

// Calibrate runs small Python timing scripts (py/calibrate.py) and returns
// the measured costs. It takes a few seconds (most of it generating and
// converting the 8K image). A missing interpreter or Pillow is a
// *MissingError (errors.Is ErrUnavailable).
func Calibrate(ctx context.Context, o CalibrateOptions) (*Calibration, error) {
	env, err := Detect(ctx, o.Python)
	if err != nil {
		return nil, err
	}
	mods := []string{"PIL"}
	if o.DB.Kind() == "mysql" {
		mods = append(mods, "pymysql")
	}
	if err := env.Require(mods...); err != nil {
		return nil, err
	}
	if o.N < 0 || o.Repeat < 0 || o.Inserts < 0 {
		return nil, fmt.Errorf("cpython: Calibrate: N, Repeat and Inserts must not be negative")
	}
	n, repeat, inserts := o.N, o.Repeat, o.Inserts
	if n == 0 {
		n = 1_000_000
	}
	if repeat == 0 {
		repeat = 3
	}
	if inserts == 0 {
		inserts = 50
	}
	dir, err := os.MkdirTemp("", "conclab-calibrate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := WriteFiles(dir); err != nil {
		return nil, err
	}
	imgs, err := generateImages(ctx, env.Python, dir, o.ImageSize)
	if err != nil {
		return nil, fmt.Errorf("cpython: Calibrate: %w", err)
	}
	db := o.DB
	if db == nil {
		db = &DB{}
	}
	vars, err := db.env(dir, uniqueTable("conclab_cal"))
	if err != nil {
		return nil, err
	}
	out, err := runPython(ctx, env.Python, dir, vars, "calibrate.py", "--image", imgs["large"],
		"--n", strconv.Itoa(n), "--repeat", strconv.Itoa(repeat), "--inserts", strconv.Itoa(inserts), "--out-dir", dir)
	if err != nil {
		return nil, fmt.Errorf("cpython: Calibrate: %w", err)
	}
	var r struct {
		Image struct {
			Seconds, GILHeld, Contended float64
			Width, Height, Bytes        int
		}
		Sumsq struct {
			Seconds, Threaded float64
			N                 int
		}
		Insert struct {
			Seconds float64
			DB      string
		}
	}
	var raw map[string]map[string]any
	if err := json.Unmarshal(lastLine(out), &raw); err != nil {
		return nil, fmt.Errorf("cpython: calibrate.py printed %q: %w", tail(string(out), 300), err)
	}
	f := func(sec, key string) float64 { v, _ := raw[sec][key].(float64); return v }
	r.Image.Seconds, r.Image.GILHeld, r.Image.Contended = f("image", "seconds"), f("image", "gil_held"), f("image", "contended_seconds")
	r.Image.Width, r.Image.Height, r.Image.Bytes = int(f("image", "width")), int(f("image", "height")), int(f("image", "bytes"))
	r.Sumsq.Seconds, r.Sumsq.N, r.Sumsq.Threaded = f("sumsq", "seconds"), int(f("sumsq", "n")), f("sumsq", "threaded_seconds")
	r.Insert.Seconds = f("insert", "seconds")
	r.Insert.DB, _ = raw["insert"]["db"].(string)
	if r.Image.Seconds <= 0 || r.Sumsq.Seconds <= 0 || r.Insert.Seconds <= 0 {
		return nil, fmt.Errorf("cpython: calibrate.py gave non-positive costs: %s", tail(string(out), 300))
	}
	// The counter saw the GIL held for held_seconds of the contended runs
	// (median); as a share of the uncontended pipeline that is held seconds
	// over solo seconds.
	held := f("image", "held_seconds") / r.Image.Seconds
	held = min(1, max(0, held))
	return &Calibration{
		Machine: "this machine", CPUs: env.CPUs, Python: env.Implementation + " " + env.Version,
		Image: secs(r.Image.Seconds), ImageWidth: r.Image.Width, ImageHeight: r.Image.Height, ImageBytes: r.Image.Bytes,
		ImageGILHeld: held, ImageContended: secs(r.Image.Contended),
		SumSquares: secs(r.Sumsq.Seconds), SumSquaresN: r.Sumsq.N, SumSquaresThreaded: secs(r.Sumsq.Threaded),
		Insert: secs(r.Insert.Seconds), DBKind: r.Insert.DB,
	}, nil
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// SourceMachine is the sources' M1 laptop as the model should run it: 8
// CPUs, about 100 ms per 8K image (source 000), sum of squares of
// 10,000,000 in about 2.5 s (source 003: 10 requests took 25 s on one
// Flask worker), a 5 ms MySQL insert (an assumption: the sources do not
// measure it) and SourceFramework's costs. imageGILHeld is the share of
// the image work that holds the GIL; pass a measured Calibration's
// ImageGILHeld to carry this machine's Pillow behaviour over.
func SourceMachine(imageGILHeld float64) *Calibration {
	return &Calibration{
		Machine: "source's M1 laptop (stated)", CPUs: 8, Python: "CPython 3.12",
		Image: 100 * time.Millisecond, ImageWidth: 7680, ImageHeight: 4320, ImageBytes: 1_400_000,
		ImageGILHeld: min(1, max(0, imageGILHeld)),
		SumSquares:   2500 * time.Millisecond, SumSquaresN: 10_000_000,
		Insert: 5 * time.Millisecond, DBKind: "mysql",
		Framework: SourceFramework(),
	}
}

// SumSquaresCost is the CPU time of a sum of squares of n, scaled linearly
// from the measured bound.
func (c *Calibration) SumSquaresCost(n int) time.Duration {
	if c.SumSquaresN <= 0 || n <= 0 {
		return 0
	}
	return time.Duration(float64(c.SumSquares) * float64(n) / float64(c.SumSquaresN))
}

// ImageSteps are the model's steps for one convert pipeline: a burn holding
// the GIL for the held share, then a burn with the GIL released for the
// rest (Pillow's C code), each called as call ("" for the handler's
// default). For a process pool, the pickled arguments are the two paths
// (a few hundred bytes), as in the source.
func (c *Calibration) ImageSteps(call pymodel.Call) []pymodel.Step {
	held := time.Duration(float64(c.Image) * c.ImageGILHeld)
	free := c.Image - held
	var out []pymodel.Step
	if held > 0 {
		s := pymodel.Burn(held)
		s.Name, s.Call = "image (GIL held)", call
		out = append(out, s)
	}
	if free > 0 {
		s := pymodel.BurnNoGIL(free)
		s.Name, s.Call = "image (GIL released)", call
		out = append(out, s)
	}
	if call == pymodel.ProcessExecutor {
		for i := range out {
			out[i].Payload = 256
		}
	}
	return out
}

// SumSquaresStep is a burn of SumSquaresCost(n) holding the GIL (pure
// Python bytecode never releases it).
func (c *Calibration) SumSquaresStep(n int) pymodel.Step {
	s := pymodel.Burn(max(c.SumSquaresCost(n), time.Microsecond))
	s.Name = "sum of squares " + strconv.Itoa(n)
	return s
}

// InsertStep is one insert as an I/O wait of the measured time, called as
// call.
func (c *Calibration) InsertStep(call pymodel.Call) pymodel.Step {
	s := pymodel.Sleep(max(c.Insert, time.Microsecond))
	s.Name, s.Call = "insert", call
	return s
}

// Handlers000 are source 000's four upload handlers as model handlers with
// these costs, keyed by the source's strategy names (Strategies000):
// sync is a def handler (convert, insert, both plain); asyncio an async def
// running the convert on the loop and awaiting the insert; ThreadPool an
// async def sending both to its ThreadPoolExecutor; ProcessPool an async def
// sending the convert to its ProcessPoolExecutor, then a plain insert on the
// loop.
func (c *Calibration) Handlers000() map[string]pymodel.Handler {
	steps := func(img pymodel.Call, ins pymodel.Call) []pymodel.Step {
		return append(c.ImageSteps(img), c.InsertStep(ins))
	}
	return map[string]pymodel.Handler{
		"sync":        {Name: "upload_sync", Steps: steps(pymodel.Block, pymodel.Block)},
		"asyncio":     {Name: "upload_asyncio", Async: true, Steps: steps(pymodel.Block, pymodel.Await)},
		"ThreadPool":  {Name: "upload_threadpool", Async: true, Steps: steps(pymodel.ThreadExecutor, pymodel.ThreadExecutor)},
		"ProcessPool": {Name: "upload_processpool", Async: true, Steps: steps(pymodel.ProcessExecutor, pymodel.Block)},
	}
}

// Handler003CPU is source 003's CPU handler (a def handler computing the sum
// of squares of n) with these costs.
func (c *Calibration) Handler003CPU(n int) pymodel.Handler {
	return pymodel.Handler{Name: "test (cpu)", Steps: []pymodel.Step{c.SumSquaresStep(n)}}
}

// Frame is the calibration as a frame, one row per step: step, cost_ms,
// gil_held (share 0..1), detail, plus machine, python and cpus.
func (c *Calibration) Frame() *frame.Frame {
	f := frame.New("calibration: " + c.Machine)
	for _, col := range []string{"step", "cost_ms", "gil_held", "detail", "machine", "python", "cpus"} {
		k := frame.Number
		if col == "step" || col == "detail" || col == "machine" || col == "python" {
			k = frame.Label
		}
		_ = f.AddColumn(col, k)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	add := func(step string, d time.Duration, held float64, detail string) {
		f.MustAppend(frame.Row{"step": step, "cost_ms": ms(d), "gil_held": held, "detail": detail,
			"machine": c.Machine, "python": c.Python, "cpus": c.CPUs})
	}
	add("image convert", c.Image, c.ImageGILHeld, fmt.Sprintf("Pillow open, convert RGB, rotate 180 x4, save; %dx%d, %d bytes; %.0f ms beside a Python thread",
		c.ImageWidth, c.ImageHeight, c.ImageBytes, ms(c.ImageContended)))
	add("sum of squares", c.SumSquares, 1, fmt.Sprintf("sum(x**2 for x in list(range(%d))); %.0f ms a call in 10 threads at once",
		c.SumSquaresN, ms(c.SumSquaresThreaded)))
	add("insert", c.Insert, 0, "one committed INSERT, "+c.DBKind)
	c.Framework.rows(add)
	return f
}
