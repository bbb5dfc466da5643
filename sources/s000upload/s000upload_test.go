package s000upload_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/sources/internal/knob"
	"github.com/conclab/conclab/sources/s000upload"
	"github.com/conclab/conclab/sources/shape"
)

func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func needPython(t *testing.T, mods ...string) {
	t.Helper()
	env, err := cpython.Detect(context.Background(), "")
	if err == nil {
		err = env.Require(mods...)
	}
	if errors.Is(err, cpython.ErrUnavailable) {
		t.Skipf("real CPython unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The styles' literals are the registry's presets (at CPUs 0).
func TestStrategiesArePresets(t *testing.T) {
	t.Parallel()
	for _, name := range s000upload.Strategies() {
		s, err := s000upload.Default.Strategy(name, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, err := strategy.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, s) {
			t.Errorf("preset %q = %#v; the source's literal %#v", name, p, s)
		}
	}
}

// The arithmetic on the source's laptop: asyncio's one loop saturates
// (R = 20 x 105.3 ms - 1 s), the others do not (R = S).
func TestEstimateSourceMachine(t *testing.T) {
	t.Parallel()
	f := s000upload.Default.Estimate(s000upload.SourceMachine(nil))
	a, _ := f.Get("strategy", s000upload.AsyncIO, "avg_ms")
	s, _ := f.Get("strategy", s000upload.Sync, "avg_ms")
	if a < 1105 || a > 1107 || s < 105 || s > 106 {
		t.Errorf("asyncio %v ms, sync %v ms; want 1106 and 105.3\n%v", a, s, f)
	}
}

// The source's laptop on the model: the shape, from the knobs and costs.
func TestShapeSourceMachine(t *testing.T) {
	t.Parallel()
	k := s000upload.Default
	k.Duration, k.Iterations = time.Minute, 2
	c := s000upload.SourceMachine(nil)
	e, err := k.Experiment(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	checks := k.Checks(res, c)
	if err := shape.Err("source 000 upload, the source's laptop", checks...); err != nil {
		t.Errorf("%v\n%v", err, res.Summary)
	}
	if !slices.ContainsFunc(checks, func(c shape.Check) bool { return c.What == "slowest (avg), model" }) {
		t.Error("no ordering check where the arithmetic is clear")
	}
	// asyncio's loop is held a whole conversion (about 100 ms), yet no
	// debug-mode slow-callback warning reaches the result (a lesson's
	// try-it prints its warnings): the real app runs without debug mode.
	if b, _ := res.Summary.Get("strategy", s000upload.AsyncIO, "loop_blocked_max_ms"); b < 50 {
		t.Errorf("asyncio held its loop at most %v ms", b)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "Executing <Task") {
			t.Errorf("a slow-callback warning: %s", w)
		}
	}
	// The lesson's correction: one GIL holder at a time, yet several
	// conversions in Pillow's C code at once in sync's one process, one
	// at a time on asyncio's loop.
	p := s000upload.Parallel(res)
	in := func(s string) float64 { v, _ := p.Get("strategy", s, "max_in_pillow_c"); return v }
	for _, s := range []string{s000upload.Sync, s000upload.AsyncIO, s000upload.ThreadPool} { // ProcessPool: in its workers
		if g, _ := p.Get("strategy", s, "max_gil_holders"); g != 1 {
			t.Errorf("%s: %v GIL holders at once\n%v", s, g, p)
		}
	}
	if in(s000upload.Sync) < 2 || in(s000upload.AsyncIO) != 1 {
		t.Errorf("conversions in C at once: sync %v (want >= 2), asyncio %v (want 1)\n%v", in(s000upload.Sync), in(s000upload.AsyncIO), p)
	}
}

// Every row of the source's table implies about the script's 1 s of think
// time (Little's law: 20/15.7 - 0.257 = 1.017 for sync).
func TestTableThink(t *testing.T) {
	t.Parallel()
	for i, z := range s000upload.Table().Floats("think_s") {
		if z < 0.95 || z > 1.1 {
			t.Errorf("row %d implies %v s of think time; want about 1", i, z)
		}
	}
}

// The lesson's knobs: the image by name, uploads in range, named errors.
func TestLessonKnobs(t *testing.T) {
	t.Parallel()
	if small, err := s000upload.IsSmall(s000upload.PNG7KB); err != nil || !small {
		t.Errorf("IsSmall(PNG) = %v, %v", small, err)
	}
	if _, err := s000upload.IsSmall("4K"); err == nil || !strings.Contains(err.Error(), "image") {
		t.Errorf("IsSmall(4K) = %v; want an error naming the image knob", err)
	}
	if _, err := s000upload.Default.Here(context.Background(), 4, 0); err == nil || !strings.Contains(err.Error(), "uploads") {
		t.Errorf("Here(0 uploads) = %v; want an error naming uploads", err)
	}
	if _, err := s000upload.Default.Here(context.Background(), -1, 1); err == nil || !strings.Contains(err.Error(), "knob vusHere must be") {
		t.Errorf("Here(VUs -1) = %v; want an error naming vusHere", err)
	}
	// Every knob out of range is named as the parameters cell names it.
	for _, c := range []struct {
		k    func(*s000upload.Knobs)
		want string
	}{
		{func(k *s000upload.Knobs) { k.VUs = -1 }, "vus"},
		{func(k *s000upload.Knobs) { k.Think = -time.Second }, "think"},
		{func(k *s000upload.Knobs) { k.Duration = 0 }, "duration"},
		{func(k *s000upload.Knobs) { k.CPUs = -1 }, "cpus"},
		{func(k *s000upload.Knobs) { k.ThreadWorkers = -1 }, "threadWorkers"},
		{func(k *s000upload.Knobs) { k.ProcessWorkers = -2 }, "processWorkers"},
	} {
		k := s000upload.Default
		c.k(&k)
		err := k.Validate()
		var ke *knob.Error
		if !errors.As(err, &ke) || ke.Knob != c.want || !strings.Contains(err.Error(), "knob "+c.want+" must be") {
			t.Errorf("want an error naming the lesson's knob %s, got %v", c.want, err)
		}
		if _, err := k.Experiment(s000upload.SourceMachine(nil)); err == nil || !strings.Contains(err.Error(), "knob "+c.want+" ") {
			t.Errorf("Experiment: want an error naming %s, got %v", c.want, err)
		}
	}
	f := s000upload.Default.Estimates(s000upload.Machines{Source: s000upload.SourceMachine(nil), Here: s000upload.SourceMachine(nil)}, 4)
	if f.Len() != 8 {
		t.Errorf("Estimates: %d rows; want 4 per machine\n%v", f.Len(), f)
	}
}

// The registered measurement, quick, on a small image: every step with a
// cost and a GIL share, the crowd from alone, read back from its table.
func TestCalibrationQuick(t *testing.T) {
	needPython(t, "PIL", cpython.FastAPIModules[0], "flask", "gunicorn")
	tb, err := calib.Measure(context.Background(), calib.Options{Quick: true}, calib.FrameworkPart, s000upload.Part)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s000upload.CostsFrom(tb)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 4 || c.Image() <= 0 || c.Insert <= 0 || len(c.Crowd) != 2 || c.Crowd[0].N != 1 {
		t.Errorf("costs %+v\n%v", c, tb)
	}
	for _, s := range c.Steps {
		if s.CPU <= 0 || s.GILHeld < 0 || s.GILHeld > 1 {
			t.Errorf("step %+v", s)
		}
	}
	if st := c.ConvertImage(256); st.Validate() != nil || st.Crowd == nil || len(st.Steps) != 4 {
		t.Errorf("ConvertImage = %v (%v)", st, st.Validate())
	}
}

// Model and real app, a few uploads of a small image each: every upload
// answered by every style, the same shape.
func TestShapeVersus(t *testing.T) {
	needPython(t, "PIL", "fastapi", "uvicorn", "multipart", "pymysql", "aiomysql")
	k := s000upload.Knobs{VUs: 4, Duration: time.Minute, Think: 10 * time.Millisecond, Iterations: 2, Image: s000upload.ImageSize{Width: 640, Height: 360}}
	c := s000upload.SourceMachine(nil)
	c.CPUs = 2
	e, err := k.Versus(context.Background(), c, nil, cpython.Options{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Len() != 8 {
		t.Fatalf("%d rows:\n%v", res.Summary.Len(), res.Summary)
	}
	checks := k.Checks(res, c)
	if err := shape.Err("source 000 upload versus", checks...); err != nil {
		t.Errorf("%v\n%v", err, res.Summary)
	}
}

// What the process pool moves: the pickled call and its result, a few
// hundred bytes, not the image; and what else it costs: a spawned
// worker's first call (a new interpreter importing the app and Pillow)
// is orders of magnitude above an empty call's round trip and a warm
// conversion.
func TestMeasureIPC(t *testing.T) {
	needPython(t, "PIL", "fastapi", "multipart")
	ipc, err := s000upload.MeasureIPC(context.Background(), cpython.Options{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ipc.Out < 50 || ipc.Out > 2000 || ipc.In < 20 || ipc.In > 2000 {
		t.Errorf("IPC %+v; want a few hundred bytes each way", ipc)
	}
	if ipc.SpawnFirst <= ipc.Empty || ipc.SpawnFirst <= ipc.Warm || ipc.Empty <= 0 || ipc.Insert <= 0 {
		t.Errorf("IPC %+v; want a spawned worker's first call above the empty round trip and a warm call", ipc)
	}
	if f := ipc.Costs(); f.Len() != 6 || f.Float("us", 0) != ipc.Empty.Seconds()*1e6 {
		t.Errorf("Costs:\n%v", f)
	}
}

// /health probed while each style converts: every probe answered, and
// under asyncio some probe waits behind a whole conversion on the loop —
// longer than the median probe under sync, whose conversions run on
// threads.
func TestHealthProbe(t *testing.T) {
	needPython(t, "PIL", "fastapi", "uvicorn", "multipart", "pymysql", "aiomysql")
	k := s000upload.Default
	k.Think, k.Image, k.Strategies = 10*time.Millisecond, s000upload.ImageSize{Width: 1920, Height: 1080}, []string{s000upload.Sync, s000upload.AsyncIO}
	e, err := k.Here(context.Background(), 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	health := s000upload.HealthProbe()
	res, err := bench.Run(context.Background(), health.Experiment(e))
	if err != nil {
		t.Fatal(err)
	}
	f := health.Frame()
	if f.Len() != 2 || res.Summary.Len() != 2 {
		t.Fatalf("probes:\n%v\nrun:\n%v", f, res.Summary)
	}
	for i := range f.Len() {
		if f.Float("probes", i) < 1 || f.Float("errors", i) != 0 {
			t.Errorf("row %d: want probes, all answered\n%v", i, f)
		}
	}
	if a, s := f.Float("max_ms", 1), f.Float("p50_ms", 0); !(a > s) {
		t.Errorf("asyncio's longest probe %v ms, sync's median %v ms; want asyncio's above\n%v", a, s, f)
	}
	t.Logf("%v", f)
	bad := &s000upload.Probe{Path: "health", Every: time.Millisecond}
	if _, err := bench.Run(context.Background(), bad.Experiment(e)); err == nil || !strings.Contains(err.Error(), "Probe") {
		t.Errorf("a probe of a path without /: %v", err)
	}
}
