package s000upload

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/sources/internal/knob"
	"github.com/conclab/conclab/sources/s000print"
)

// The source's two images, as a lesson names them (its k6 script carries
// both; its table is the large one's).
const (
	JPEG8K = "8K JPEG"  // test_image_2.jpg: 7680 x 4320, about 1.4 MB
	PNG7KB = "7 KB PNG" // test_image_1.png
)

// Images lists them.
func Images() []string { return []string{JPEG8K, PNG7KB} }

// IsSmall is whether image names the small PNG (Knobs.Small), or an error
// naming the knob when it names neither image.
func IsSmall(image string) (bool, error) {
	switch image {
	case JPEG8K:
		return false, nil
	case PNG7KB:
		return true, nil
	}
	return false, knob.Want(pkg, "image", false, fmt.Sprintf("%q or %q", JPEG8K, PNG7KB), image)
}

// Machines are the two machines' costs for one image: this one's
// (measured) and the source's laptop's (SourceMachine: 100 ms an 8K
// image, cut as this machine's steps).
type Machines struct {
	Here, Source *Costs
}

// MachineCosts is both machines' costs for the knobs' image: this
// machine's calibration (its framework part and the image's — Part, or
// PNGPart for the small PNG — read back when fresh, measured when not:
// calib.Machine), and the source laptop's (SourceMachine; for the PNG its
// image time scaled by the PNG's share of the 8K's here, an assumption:
// the source times only the 8K). A missing interpreter or package is a
// *cpython.MissingError naming it.
func MachineCosts(ctx context.Context, k Knobs) (Machines, error) {
	parts := []string{calib.FrameworkPart, Part}
	if k.Small {
		parts = append(parts, PNGPart)
	}
	t, err := calib.Machine(ctx, "", parts...)
	if err != nil {
		return Machines{}, err
	}
	here, err := CostsFrom(t)
	if err != nil {
		return Machines{}, err
	}
	if !k.Small {
		return Machines{Here: here, Source: SourceMachine(here)}, nil
	}
	png, err := costsFrom(t, PNGPart)
	if err != nil {
		return Machines{}, err
	}
	png.Machine += ", the 7 KB PNG"
	src := SourceMachine(png)
	scale := float64(png.Image()) / float64(here.Image())
	for i := range src.Steps {
		src.Steps[i].CPU = time.Duration(float64(src.Steps[i].CPU) * scale)
	}
	src.Machine += ", the 7 KB PNG (scaled as here)"
	return Machines{Here: png, Source: src}, nil
}

// Estimates is Estimate on both machines, a machine column first: the
// source's laptop with the knobs, this machine with its own CPUs and
// vusHere VUs (the run Here makes).
func (k Knobs) Estimates(m Machines, vusHere int) *frame.Frame {
	f := frame.Of(fmt.Sprintf("source 000 upload estimated: %d VUs, think %v", k.VUs, k.Think), "machine", "strategy", "service_ms", "at_once", "avg_ms", "rps")
	for _, x := range []struct {
		name string
		c    *Costs
	}{{"source (M1, modelled)", m.Source}, {"this machine", m.Here}} {
		if x.c == nil {
			continue
		}
		kk := k
		if x.c != m.Source {
			kk.CPUs, kk.VUs = 0, vusHere // this machine's own CPUs; Here's VUs
		}
		for _, r := range kk.Estimate(x.c).Rows() {
			r["machine"] = x.name
			f.MustAppend(r)
		}
	}
	return f
}

// Here is the run on this machine: the real app alone ("real sync", ...),
// vus VUs (not the knobs': an 8K conversion costs this machine several of
// the source's) each uploading the knobs' image uploads times (k6's
// per-VU iterations), thinking between uploads, at most 3 minutes. The
// model of this machine is Versus.
func (k Knobs) Here(ctx context.Context, vus, uploads int) (bench.Experiment, error) {
	err := knob.First(
		knob.Want(pkg, "vusHere", vus >= 1 && vus <= 100, "in 1..100", vus),
		knob.Want(pkg, "uploads", uploads >= 1 && uploads <= 100, "in 1..100", uploads),
	)
	if err != nil {
		return bench.Experiment{}, err
	}
	k.VUs = vus
	if err := k.Validate(); err != nil {
		return bench.Experiment{}, err
	}
	o := cpython.Options{}
	img, err := Image(ctx, o, k.Image, k.Small)
	if err != nil {
		return bench.Experiment{}, err
	}
	e := bench.Experiment{
		Name:    fmt.Sprintf("source 000 upload on this machine, real CPython: %d VUs x %d uploads, think %v", k.VUs, uploads, k.Think),
		Load:    load.Closed{VUs: k.VUs, Duration: 3 * time.Minute, Iterations: uploads, Think: k.Think},
		Request: load.Target{Files: []load.File{{Field: "file", Path: img}}},
		Pause:   time.Second,
	}
	app := k.App(nil)
	for _, name := range k.strategies() {
		e.Strategies = append(e.Strategies, cpython.Real{Name: cpython.RealPrefix + name, App: app, Endpoint: Paths[name], Options: o})
	}
	return e, nil
}

// Frame is the costs' image steps: CPU alone and the share of it that
// holds the GIL, then the whole conversion (the steps' sum, its share
// weighted by their CPU).
func (c *Costs) Frame() *frame.Frame {
	f := frame.Of(fmt.Sprintf("Pillow's steps on %s: CPU alone, and the share holding the GIL", c.Machine), "step", "cpu_ms", "gil_held")
	for _, s := range c.Steps {
		f.MustAppend(frame.Row{"step": s.Name, "cpu_ms": s.CPU.Seconds() * 1000, "gil_held": s.GILHeld})
	}
	f.MustAppend(frame.Row{"step": "convert_image (all steps)", "cpu_ms": c.Image().Seconds() * 1000, "gil_held": c.GILHeld()})
	return f
}

// Parallel is, per model row of res (but ProcessPool's), the most conversions inside Pillow's
// C code (cpu_nogil) at one moment in one process, and the most threads
// holding one process's GIL at once (1 under a GIL).
func Parallel(res *bench.Result) *frame.Frame {
	f := frame.Of("conversions at once in one process (the model's trace)", "strategy", "max_in_pillow_c", "max_gil_holders")
	for _, s := range res.Summary.Texts("strategy") {
		if len(res.Events(s)) == 0 || s == ProcessPool {
			continue // a process pool converts in its workers, one each
		}
		f.MustAppend(frame.Row{"strategy": s, "max_in_pillow_c": res.MaxOverlapPerWorker(s, trace.CPUNoGIL), "max_gil_holders": res.MaxOverlapPerWorker(s, trace.GIL)})
	}
	return f
}

// Frame is the measured bytes as a table.
func (p IPC) Frame() *frame.Frame {
	f := frame.Of("what a ProcessPoolExecutor moves per conversion, counted on its pipes", "direction", "bytes")
	f.MustAppend(frame.Row{"direction": "to the worker (the call by reference, two paths)", "bytes": p.Out})
	f.MustAppend(frame.Row{"direction": "back (the output path)", "bytes": p.In})
	f.MustAppend(frame.Row{"direction": "for comparison: the 8K JPEG itself", "bytes": 1.4e6})
	return f
}

// Costs is the pool's other costs in microseconds, one row each (cost,
// us): the empty call's round trip, a call converting in a warm worker, a
// fresh forked worker's first call, a fresh spawned worker's first call
// and its later ones, and the insert the handler runs on the loop. first
// − warm is a worker's start-up; the empty round trip is what the pipes
// and pickling cost a call. (Inline, the conversion with no pool, is not
// a row: timed in the parent after the pool's runs it is noisier than the
// difference it would show.)
func (p IPC) Costs() *frame.Frame {
	f := frame.Of("what a process pool costs besides its bytes (the 7 KB PNG, this machine)", "cost", "us")
	us := func(d time.Duration) float64 { return d.Seconds() * 1e6 }
	for _, r := range []frame.Row{
		{"cost": "empty call", "us": us(p.Empty)},
		{"cost": "warm call", "us": us(p.Warm)},
		{"cost": "1st call, fork", "us": us(p.First)},
		{"cost": "1st call, spawn", "us": us(p.SpawnFirst)},
		{"cost": "spawned, warm", "us": us(p.SpawnWarm)},
		{"cost": "insert on the loop", "us": us(p.Insert)},
	} {
		f.MustAppend(r)
	}
	return f
}

// Handlers is the app's image function, its executors and upload helper,
// and its four handlers as listings, the lines the lesson judges marked.
func Handlers() (s000print.Listing, error) {
	code, err := Code("app000_upload.py")
	if err != nil {
		return "", err
	}
	return s000print.Excerpt(code, "class ImageProcessor", "class BaseRepository", map[string]string{
		"async def convert_image_async": "◀ async def ...",
		"image.rotate(180)":             "◀ Pillow: C code",
		"image.save(output_path)":       "◀ ... and no await from open to save",
	}) + s000print.Excerpt(code, "thread_executor =", "baseRepository =", map[string]string{
		"ThreadPoolExecutor(":  "◀ min(32, CPUs + 4) threads",
		"ProcessPoolExecutor(": "◀ one process per CPU",
	}) + s000print.Excerpt(code, "def _save_image", "def _cleanup", map[string]string{
		"f.write(": "◀ a blocking write: on the loop in the async def handlers",
	}) + s000print.Excerpt(code, "# 1. ", "# 4. ", map[string]string{
		"ImageProcessor.convert_image_async(": "◀ runs on the event loop",
	}) + s000print.Excerpt(code, "# 4. ", "app = FastAPI()", map[string]string{
		"baseRepository.insert_sync(": "◀ a blocking insert on the event loop",
	}), nil
}
