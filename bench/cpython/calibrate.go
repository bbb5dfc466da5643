package cpython

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
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
	// the GIL; the rest runs with the GIL released. Measured, it is the
	// steps' held shares weighted by their costs (ImageStepCosts).
	ImageGILHeld float64

	// SumSquares is the CPU time of source 003's sum of squares of
	// SumSquaresN, pure Python (holds the GIL throughout).
	SumSquares  time.Duration
	SumSquaresN int
	// SumSquaresThreaded is the wall time per call when 10 threads of one
	// process compute it at once, as source 003's ten requests on one
	// worker do.
	SumSquaresThreaded time.Duration
	// SumSquaresBurst is the process's CPU time per call in that run: what
	// a call costs when ten lists of n ints are alive at once (fresh memory
	// each, 1.2 GB for n = 3,000,000), which is more — by 10–40 % here —
	// than SumSquares, one call after another on a warm heap. Source 003
	// runs its sums that way, so SumSquaresCost charges this when it was
	// measured (0: not measured, SumSquares is charged).
	SumSquaresBurst time.Duration

	// Insert is the wall time of one committed INSERT into DBKind
	// ("sqlite" or "mysql"); the model waits it as I/O.
	Insert time.Duration
	DBKind string

	// ImageStepCosts are the pipeline's real steps measured one by one, in
	// order: decode (Image.open + load), convert RGB, rotate 180 x4, encode
	// (save). Their CPU times add up to Image. Nil when the costs are
	// stated rather than measured: ImageSteps then splits Image in two.
	ImageStepCosts []StepCost
	// ImageCrowd is source 000's whole convert_image with N conversions at
	// once in one fresh process, each of N threads converting two images
	// (py/calibrate.py's crowd): the process's CPU time per image, for N
	// ascending from 1 (alone). Here it is about a tenth to a fifth more
	// with twenty at once than alone, and about the same with six; alone it
	// is often less than Image, the steps timed one by one on prepared
	// inputs (whose results stay alive). ConvertImageStep charges a
	// conversion what ImageCrowd gives for how many run at once in its
	// process, its steps keeping their shares of Image (CrowdFactors). Nil
	// when not measured (stated costs): a conversion costs Image.
	ImageCrowd []CrowdCost `json:",omitempty"`
	// Hash is sha256 of the ImageBytes upload (hashlib), a second C
	// extension that releases the GIL, measured the same way; it is not
	// part of source 000's handlers (HashStep makes it a model step).
	Hash StepCost

	// Framework is the server stacks' own cost per request and print()'s
	// per line (MeasureFramework); nil when not measured.
	Framework *Framework `json:",omitempty"`
}

// StepCost is one real step measured alone and by the GIL probe
// (py/calibrate.py's gil_probe): with CPython's switch interval made huge,
// a pure-Python thread spinning beside the step can run only while the
// step has released the GIL, so its CPU time over the step's (Probe),
// against the same ratio beside zlib.compress, which releases the GIL
// throughout (Reference), is the step's released share: GILHeld = 1 -
// Probe / Reference, clamped to 0..1. Both are ratios of CPU times, and
// the scheduler shares the cores fairly between runnable threads, so a
// busy machine slows both threads alike and leaves the share
// (docs/calibration.md). The model runs such a step as its held part,
// then its released part (pymodel.Step.GILReleased).
type StepCost struct {
	Name string
	// CPU is the CPU time of one run alone (median): the model step's cost.
	CPU time.Duration
	// Probe and Reference are the probe's ratios (medians): the spinning
	// thread's CPU over the step's, and over zlib's.
	Probe, Reference float64
	// GILHeld is the share of CPU during which the step holds the GIL.
	GILHeld float64
}

// CrowdCost is the CPU time per conversion with N at once in one process.
type CrowdCost struct {
	N   int
	CPU time.Duration
}

// CrowdFactors are ImageCrowd's costs relative to Image (the steps' sum),
// as the convert step's crowd (pymodel.Crowd): the model's ImageSteps,
// scaled by the factor for N at once, cost what the whole pipeline did
// with N at once in one process. Nil when ImageCrowd is empty or does not
// start at 1, or Image is not positive.
func (c *Calibration) CrowdFactors() *pymodel.Crowd {
	if len(c.ImageCrowd) == 0 || c.ImageCrowd[0].N != 1 || c.Image <= 0 {
		return nil
	}
	cr := &pymodel.Crowd{Key: "convert_image"}
	for _, p := range c.ImageCrowd {
		cr.Factors = append(cr.Factors, pymodel.CrowdFactor{N: p.N, Factor: float64(p.CPU) / float64(c.Image)})
	}
	return cr
}

// Step is the model step of this cost: CPU burnt holding the GIL for the
// GILHeld share, then releasing it (pymodel.BurnHeld), named Name.
func (s StepCost) Step() pymodel.Step {
	st := pymodel.BurnHeld(max(s.CPU, time.Microsecond), min(1, max(0, s.GILHeld)))
	st.Name = s.Name
	return st
}

// imageStepNames are calibrate.py's image steps, in pipeline order, and
// the names the model steps and the Frame give them.
var imageStepNames = []struct{ key, name string }{
	{"decode", "decode"}, {"convert", "convert RGB"}, {"rotate", "rotate 180 x4"}, {"encode", "encode"},
}

// Calibrate runs small Python timing scripts (py/calibrate.py) and returns
// the measured costs. At the default 8K image it takes about 45 s, most
// of it converting the image: step by step, then 54 times in the crowd of
// 1, 6 and 20 at once (which holds twenty 8K conversions, several GB, in
// one process at its peak). A missing interpreter or Pillow is a
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
			Seconds              float64
			Width, Height, Bytes int
		}
		Sumsq struct {
			Seconds, Threaded, ThreadedCPU float64
			N                              int
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
	r.Image.Seconds = f("image", "seconds")
	r.Image.Width, r.Image.Height, r.Image.Bytes = int(f("image", "width")), int(f("image", "height")), int(f("image", "bytes"))
	r.Sumsq.Seconds, r.Sumsq.N, r.Sumsq.Threaded = f("sumsq", "seconds"), int(f("sumsq", "n")), f("sumsq", "threaded_seconds")
	r.Sumsq.ThreadedCPU = f("sumsq", "threaded_cpu_seconds")
	r.Insert.Seconds = f("insert", "seconds")
	r.Insert.DB, _ = raw["insert"]["db"].(string)
	if r.Image.Seconds <= 0 || r.Sumsq.Seconds <= 0 || r.Insert.Seconds <= 0 {
		return nil, fmt.Errorf("cpython: calibrate.py gave non-positive costs: %s", tail(string(out), 300))
	}
	var steps struct {
		Image struct {
			Crowd []struct {
				N          int     `json:"n"`
				CPUSeconds float64 `json:"cpu_seconds"`
			} `json:"crowd"`
			Steps map[string]struct {
				Seconds   float64 `json:"seconds"`
				Probe     float64 `json:"gil_probe"`
				Reference float64 `json:"gil_reference"`
				GILHeld   float64 `json:"gil_held"`
			} `json:"steps"`
		} `json:"image"`
	}
	if err := json.Unmarshal(lastLine(out), &steps); err != nil {
		return nil, fmt.Errorf("cpython: calibrate.py's image steps: %w", err)
	}
	cost := func(key, name string) (StepCost, error) {
		m, ok := steps.Image.Steps[key]
		if !ok || m.Seconds <= 0 || m.Probe < 0 || m.Reference <= 0 {
			return StepCost{}, fmt.Errorf("cpython: calibrate.py gave no positive cost or GIL probe for step %q: %s", key, tail(string(out), 300))
		}
		return StepCost{Name: name, CPU: secs(m.Seconds), Probe: m.Probe, Reference: m.Reference,
			GILHeld: min(1, max(0, m.GILHeld))}, nil
	}
	c := &Calibration{
		Machine: "this machine", CPUs: env.CPUs, Python: env.Implementation + " " + env.Version,
		ImageWidth: r.Image.Width, ImageHeight: r.Image.Height, ImageBytes: r.Image.Bytes,
		SumSquares: secs(r.Sumsq.Seconds), SumSquaresN: r.Sumsq.N, SumSquaresThreaded: secs(r.Sumsq.Threaded), SumSquaresBurst: secs(r.Sumsq.ThreadedCPU),
		Insert: secs(r.Insert.Seconds), DBKind: r.Insert.DB,
	}
	var held float64
	for _, n := range imageStepNames {
		sc, err := cost(n.key, n.name)
		if err != nil {
			return nil, err
		}
		c.ImageStepCosts = append(c.ImageStepCosts, sc)
		c.Image += sc.CPU
		held += sc.GILHeld * float64(sc.CPU)
	}
	c.ImageGILHeld = held / float64(c.Image)
	for i, p := range steps.Image.Crowd {
		if p.N < 1 || p.CPUSeconds <= 0 || (i == 0) != (p.N == 1) || (i > 0 && p.N <= steps.Image.Crowd[i-1].N) {
			return nil, fmt.Errorf("cpython: calibrate.py's crowd point %d (n %d, %v s): want n ascending from 1 and a positive cost: %s", i+1, p.N, p.CPUSeconds, tail(string(out), 300))
		}
		c.ImageCrowd = append(c.ImageCrowd, CrowdCost{N: p.N, CPU: secs(p.CPUSeconds)})
	}
	if len(c.ImageCrowd) == 0 {
		return nil, fmt.Errorf("cpython: calibrate.py measured no crowd: %s", tail(string(out), 300))
	}
	if c.Hash, err = cost("sha256", "sha256 (hashlib)"); err != nil {
		return nil, err
	}
	return c, nil
}

// CalibrateSum measures source 003's sum of squares of n (alone, and per
// call in ten threads at once) with python ("": the default interpreter),
// quickly: Calibrate with a small image, three repeats and one insert.
// Experiment003 and MeasureSplit use it when given no Calibration, and a
// caller running several of them shares one.
func CalibrateSum(ctx context.Context, python string, n int) (*Calibration, error) {
	return Calibrate(ctx, CalibrateOptions{Python: python, ImageSize: ImageSize{640, 360}, N: n, Repeat: 3, Inserts: 1})
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
// from the measured bound: a call's cost in a burst of ten
// (SumSquaresBurst) when that was measured, else one call's alone.
func (c *Calibration) SumSquaresCost(n int) time.Duration {
	if c.SumSquaresN <= 0 || n <= 0 {
		return 0
	}
	per := c.SumSquares
	if c.SumSquaresBurst > 0 {
		per = c.SumSquaresBurst
	}
	return time.Duration(float64(per) * float64(n) / float64(c.SumSquaresN))
}

// ImageSteps are the model's steps for one convert pipeline, each called
// as call ("" for the handler's default). With measured step costs
// (ImageStepCosts) there is one model step per real step — decode, convert
// RGB, rotate 180 x4, encode — each burning its CPU time and holding the
// GIL for its measured share (StepCost.Step). Without them (stated costs),
// a burn holding the GIL for the ImageGILHeld share of Image, then a burn
// with the GIL released for the rest. For a process pool, the pickled
// arguments are the two paths (a few hundred bytes), as in the source.
func (c *Calibration) ImageSteps(call pymodel.Call) []pymodel.Step {
	var out []pymodel.Step
	if len(c.ImageStepCosts) > 0 {
		for _, sc := range c.ImageStepCosts {
			out = append(out, sc.Step())
		}
	} else {
		held := time.Duration(float64(c.Image) * c.ImageGILHeld)
		free := c.Image - held
		if held > 0 {
			s := pymodel.Burn(held)
			s.Name = "image (GIL held)"
			out = append(out, s)
		}
		if free > 0 {
			s := pymodel.BurnNoGIL(free)
			s.Name = "image (GIL released)"
			out = append(out, s)
		}
	}
	for i := range out {
		out[i].Call = call
		if call == pymodel.ProcessExecutor {
			out[i].Payload = 256
		}
	}
	return out
}

// HashStep is sha256 of the upload (Hash) as a model step, called as call.
func (c *Calibration) HashStep(call pymodel.Call) pymodel.Step {
	s := c.Hash.Step()
	s.Call = call
	return s
}

// WithImageCosts returns a copy of c whose image pipeline is cut into
// steps as from's is (ImageStepCosts), each step's cost the same share of
// c.Image as in from and its held share from's: the source machine's
// stated 100 ms per image with this machine's measured Pillow behaviour,
// SourceMachine(0).WithImageCosts(cal). The copy's ImageGILHeld is
// from's; its crowd (ImageCrowd) stays c's, none for SourceMachine: how a
// conversion's cost grows with others at once is this machine's memory,
// not Pillow's. A from without step costs leaves the copy's image as c's.
func (c *Calibration) WithImageCosts(from *Calibration) *Calibration {
	out := *c
	out.ImageCrowd = slices.Clone(c.ImageCrowd)
	if from == nil || len(from.ImageStepCosts) == 0 || from.Image <= 0 {
		return &out
	}
	out.ImageStepCosts = nil
	scale := float64(c.Image) / float64(from.Image)
	for _, sc := range from.ImageStepCosts {
		sc.CPU = time.Duration(float64(sc.CPU) * scale)
		out.ImageStepCosts = append(out.ImageStepCosts, sc)
	}
	out.ImageGILHeld = from.ImageGILHeld
	return &out
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
		return []pymodel.Step{c.ConvertImageStep(img), c.InsertStep(ins)}
	}
	return map[string]pymodel.Handler{
		"sync":        {Name: "upload_sync", Steps: steps(pymodel.Block, pymodel.Block)},
		"asyncio":     {Name: "upload_asyncio", Async: true, Steps: steps(pymodel.Block, pymodel.Await)},
		"ThreadPool":  {Name: "upload_threadpool", Async: true, Steps: steps(pymodel.ThreadExecutor, pymodel.ThreadExecutor)},
		"ProcessPool": {Name: "upload_processpool", Async: true, Steps: steps(pymodel.ProcessExecutor, pymodel.Block)},
	}
}

// ConvertImageStep is source 000's convert_image as one model call, as
// run_in_executor is sent the whole function: a seq step (pymodel.Seq) of
// ImageSteps, called as call, so an executor thread or a pool worker runs
// decode, convert, rotate x4 and encode one after another for the same
// upload instead of queueing again between them.
func (c *Calibration) ConvertImageStep(call pymodel.Call) pymodel.Step {
	s := pymodel.Seq("convert_image", c.ImageSteps("")...)
	s.Call = call
	s.Crowd = c.CrowdFactors()
	if call == pymodel.ProcessExecutor {
		s.Payload = 256
	}
	return s
}

// Handler003CPU is source 003's CPU handler (a def handler computing the sum
// of squares of n) with these costs.
func (c *Calibration) Handler003CPU(n int) pymodel.Handler {
	return pymodel.Handler{Name: "test (cpu)", Steps: []pymodel.Step{c.SumSquaresStep(n)}}
}

// Frame is the calibration as a frame, one row per step: step, cost_ms,
// gil_held (share 0..1), detail, plus machine, python and cpus. The image
// pipeline's row is followed by its measured steps' rows (ImageStepCosts)
// and sha256's (Hash), when measured; the detail of each gives its GIL
// probe (StepCost).
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
	add("image convert", c.Image, c.ImageGILHeld, fmt.Sprintf("Pillow open, convert RGB, rotate 180 x4, save; %dx%d, %d bytes",
		c.ImageWidth, c.ImageHeight, c.ImageBytes))
	measured := func(sc StepCost, what string) {
		add(sc.Name, sc.CPU, sc.GILHeld, fmt.Sprintf("%s; GIL probe: a Python thread beside it ran %.2f of its CPU, beside zlib %.2f", what, sc.Probe, sc.Reference))
	}
	what := map[string]string{"decode": "image step: Image.open + load", "convert RGB": "image step: convert(\"RGB\")",
		"rotate 180 x4": "image step: rotate(180) four times", "encode": "image step: save (JPEG)"}
	for _, sc := range c.ImageStepCosts {
		measured(sc, what[sc.Name])
	}
	for _, p := range c.ImageCrowd {
		detail := fmt.Sprintf("whole convert_image, %d at once in one fresh process (threads), 2 each: CPU per image", p.N)
		if cr := c.CrowdFactors(); cr != nil {
			detail += fmt.Sprintf("; charged: the steps x%.2f", cr.Factor(p.N))
		}
		add(fmt.Sprintf("image convert, %d at once", p.N), p.CPU, c.ImageGILHeld, detail)
	}
	if c.Hash.CPU > 0 {
		measured(c.Hash, fmt.Sprintf("hashlib.sha256 of the %d-byte upload (not in source 000)", c.ImageBytes))
	}
	add("sum of squares", c.SumSquares, 1, fmt.Sprintf("sum(x**2 for x in list(range(%d))), alone; in 10 threads at once (a fresh interpreter a round, median round) %.0f ms a call, %.0f ms of CPU (charged)",
		c.SumSquaresN, ms(c.SumSquaresThreaded), ms(c.SumSquaresBurst)))
	add("insert", c.Insert, 0, "one committed INSERT, "+c.DBKind)
	c.Framework.rows(add)
	return f
}
