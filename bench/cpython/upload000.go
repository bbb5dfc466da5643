package cpython

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/workload"
)

// UploadImage returns the path of source 000's large test image at size
// (zero: the source's 8K), drawn by Pillow (gen_images.py) once per machine
// and size into workload.CacheDir()/cpython-images. Model and real uploads
// send the same file.
func UploadImage(ctx context.Context, opts Options, size ImageSize) (string, error) {
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return "", err
	}
	if err := env.Require("PIL"); err != nil {
		return "", err
	}
	w, h := size.Width, size.Height
	if w == 0 && h == 0 {
		w, h = 7680, 4320
	}
	parent := filepath.Join(workload.CacheDir(), "cpython-images")
	final := filepath.Join(parent, fmt.Sprintf("%dx%d", w, h))
	large := filepath.Join(final, "test_image_2.jpg")
	if _, err := os.Stat(large); err == nil {
		return large, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("cpython: upload image: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "gen-")
	if err != nil {
		return "", fmt.Errorf("cpython: upload image: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := WriteFiles(tmp); err != nil {
		return "", err
	}
	imgs, err := generateImages(ctx, env.Python, tmp, ImageSize{w, h})
	if err != nil {
		return "", fmt.Errorf("cpython: upload image: %w", err)
	}
	if filepath.Base(imgs["large"]) != "test_image_2.jpg" {
		return "", fmt.Errorf("cpython: upload image: gen_images.py wrote %q", imgs["large"])
	}
	// Another run may have won the race: its files are the same.
	if err := os.Rename(filepath.Dir(imgs["large"]), final); err != nil && !errors.Is(err, os.ErrExist) {
		if _, serr := os.Stat(large); serr != nil {
			return "", fmt.Errorf("cpython: upload image: %w", err)
		}
	}
	return large, nil
}

// Options000Upload choose source 000's upload comparison. The zero value
// is the source's k6 script (20 VUs for 10 s, sleep(1) between uploads) on
// the 8K image, SQLite, this machine calibrated.
type Options000Upload struct {
	// Calibration gives the model its costs; nil calibrates this machine's
	// CPython on the same image size first.
	Calibration *Calibration
	// DB is where the real app inserts (nil: SQLite).
	DB *DB
	// ImageSize is the uploaded image's (zero: the source's 8K).
	ImageSize ImageSize
	// VUs, Duration and Think are k6's (0: 20, 10 s, 1 s; a negative
	// Think means none).
	VUs             int
	Duration, Think time.Duration
	// Iterations, if positive, also stops each VU after that many uploads
	// (k6's per-vu-iterations), whichever of it and Duration comes first:
	// at the source's load on a slow machine one upload can take seconds,
	// and a count keeps every strategy's run to the same work.
	Iterations int
	// Strategies are the rows by the source's names (nil: Strategies000).
	Strategies []string
	// Python tunes the real app.
	Python Options
}

// Model000Upload is the model strategy of one of source 000's upload
// strategies ("sync", "asyncio", "ThreadPool", "ProcessPool") on cal's
// machine (its CPU count sizes the pools), paying its framework costs when
// it has them (Calibration.Framework), and its workload with cal's costs
// (Calibration.Handlers000).
func Model000Upload(name string, cal *Calibration) (strategy.Strategy, pymodel.Workload, error) {
	if cal == nil {
		return nil, pymodel.Workload{}, fmt.Errorf("cpython: Model000Upload %q: nil calibration (Calibrate, or SourceMachine)", name)
	}
	h, ok := cal.Handlers000()[name]
	if !ok {
		return nil, pymodel.Workload{}, fmt.Errorf("cpython: unknown source-000 upload strategy %q (want one of %v)", name, Strategies000)
	}
	py := strategy.Python{CPUs: cal.CPUs}
	if f := cal.Costs(); f != nil {
		py.Framework = f.Cost // the stack's own cost per request, as CPython pays it
	}
	return strategy.Uvicorn{Name: name, Async: h.Async, Python: py},
		pymodel.Workload{Name: h.Name, Steps: h.Steps}, nil
}

// Model000 is source 000's upload on the model only, with cal's machine
// and costs — SourceMachine(share) is the source's M1 laptop — under k6's
// closed VUs (vus, duration, think as Options000Upload's; the request
// carries no file: the model's costs are the calibration's). Every
// strategy of Strategies000, in the source's order.
func Model000(cal *Calibration, vus int, duration, think time.Duration) (bench.Experiment, error) {
	if vus <= 0 || duration <= 0 || think < 0 {
		return bench.Experiment{}, fmt.Errorf("cpython: Model000: need vus and duration positive and think not negative, got %d, %v, %v", vus, duration, think)
	}
	e := bench.Experiment{
		Name:      fmt.Sprintf("source 000 upload on the model of %s: %d VUs, %v, think %v", cal.Machine, vus, duration, think),
		Workloads: map[string]pymodel.Workload{},
		Load:      load.Closed{VUs: vus, Duration: duration, Think: think},
	}
	for _, name := range Strategies000 {
		m, w, err := Model000Upload(name, cal)
		if err != nil {
			return bench.Experiment{}, err
		}
		e.Workloads[name] = w
		e.Strategies = append(e.Strategies, m)
	}
	return e, nil
}

// Experiment000Upload is source 000's upload, model vs real: for each
// strategy the model with calibrated costs (Model000Upload) and the real
// app ("real sync": App000Upload's /commiter/upload_sync, ...), under k6's
// closed VUs, each VU posting the same image file as a multipart upload
// (load.Target Files).
func Experiment000Upload(ctx context.Context, o Options000Upload) (bench.Experiment, error) {
	if o.VUs == 0 {
		o.VUs = 20
	}
	if o.VUs < 0 || o.Duration < 0 || o.Iterations < 0 {
		return bench.Experiment{}, fmt.Errorf("cpython: Experiment000Upload: VUs, Duration and Iterations must not be negative, got %d, %v, %d", o.VUs, o.Duration, o.Iterations)
	}
	if o.Duration == 0 {
		o.Duration = 10 * time.Second
	}
	switch {
	case o.Think == 0:
		o.Think = time.Second
	case o.Think < 0:
		o.Think = 0
	}
	names := o.Strategies
	if names == nil {
		names = Strategies000
	}
	img, err := UploadImage(ctx, o.Python, o.ImageSize)
	if err != nil {
		return bench.Experiment{}, err
	}
	cal := o.Calibration
	if cal == nil {
		if cal, err = Calibrate(ctx, CalibrateOptions{Python: o.Python.Python, ImageSize: o.ImageSize, Repeat: 3, DB: o.DB}); err != nil {
			return bench.Experiment{}, err
		}
	}
	e := bench.Experiment{
		Name:      fmt.Sprintf("source 000 upload: %d VUs, %v, think %v, model vs real CPython", o.VUs, o.Duration, o.Think),
		Pause:     time.Second, // the last run's processes and page cache settle
		Workloads: map[string]pymodel.Workload{},
		Load:      load.Closed{VUs: o.VUs, Duration: o.Duration, Iterations: o.Iterations, Think: o.Think},
		Request:   load.Target{Files: []load.File{{Field: "file", Path: img}}},
	}
	app := App000Upload(o.DB)
	app.Images = false // the upload is the cached file above
	for _, name := range names {
		m, w, err := Model000Upload(name, cal)
		if err != nil {
			return bench.Experiment{}, err
		}
		e.Workloads[name] = w
		e.Strategies = append(e.Strategies, m, Real{Name: RealPrefix + name, App: app, Endpoint: Upload000[name], Options: o.Python})
	}
	return e, nil
}
