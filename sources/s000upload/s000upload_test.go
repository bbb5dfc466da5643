package s000upload_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
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
// hundred bytes, not the image.
func TestMeasureIPC(t *testing.T) {
	needPython(t, "PIL", "fastapi", "multipart")
	ipc, err := s000upload.MeasureIPC(context.Background(), cpython.Options{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ipc.Out < 50 || ipc.Out > 2000 || ipc.In < 20 || ipc.In > 2000 {
		t.Errorf("IPC %+v; want a few hundred bytes each way", ipc)
	}
}
