package cpython

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/workload"
)

func TestCalibrationFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "cal.json")
	c := SourceMachine(0.2)
	c.Framework = &Framework{Cost: pymodel.FrameworkCost{Loop: 300 * time.Microsecond}, Requests: 100, PrintLine: 4 * time.Microsecond, PrintWrite: time.Microsecond}
	if err := SaveCalibration(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCalibration(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Image != c.Image || got.ImageGILHeld != c.ImageGILHeld || *got.Framework != *c.Framework {
		t.Errorf("read back %+v / %+v; want %+v / %+v", got, got.Framework, c, c.Framework)
	}
	if d := got.Framework.PrintExtra(); d != 3*time.Microsecond {
		t.Errorf("PrintExtra = %v; want 3µs", d)
	}
}

func TestLoadCalibrationErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadCalibration(filepath.Join(dir, "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v; want fs.ErrNotExist", err)
	}
	write := func(name string, v any) string {
		b, _ := json.Marshal(v)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	host, _ := os.Hostname()
	full := SourceMachine(0.2)
	noFramework := SourceMachine(0.2)
	noFramework.Framework = nil
	cases := []struct {
		name string
		path string
		want string
	}{
		{"not json", func() string { p := filepath.Join(dir, "bad"); os.WriteFile(p, []byte("{"), 0o644); return p }(), "unexpected end"},
		{"old version", write("v1", calibrationFile{Version: 1, Host: host, Calibration: full}), "version 1"},
		{"other scripts", write("scripts", calibrationFile{Version: calibrationVersion, Host: host, Scripts: "0123", Calibration: full}), "other calibration scripts"},
		{"other host", write("host", calibrationFile{Version: calibrationVersion, Host: host + "-elsewhere", Scripts: calibrationScripts(), Calibration: full}), "measured on"},
		{"no framework", write("nofw", calibrationFile{Version: calibrationVersion, Host: host, Scripts: calibrationScripts(), Calibration: noFramework}), "incomplete"},
	}
	for _, c := range cases {
		_, err := LoadCalibration(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v; want one saying %q", c.name, err, c.want)
		}
	}
}

func TestCalibrationFileEnv(t *testing.T) {
	t.Setenv(CalibrationEnv, "/somewhere/cal.json")
	if got := CalibrationFile(); got != "/somewhere/cal.json" {
		t.Errorf("CalibrationFile() = %q with %s set", got, CalibrationEnv)
	}
}

// TestMeasureFramework measures the real stacks: every cost positive, the
// def endpoint dearer than the async one, and print() dearer than its
// write.
func TestMeasureFramework(t *testing.T) {
	needPython(t, with(fastapiMods, "flask", "gunicorn")...)
	f, err := MeasureFramework(context.Background(), FrameworkOptions{Requests: 300, Lines: 5000, Repeat: 1, Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if f.Rounds != 2 || !strings.Contains(f.Frame().Text("detail", 0), "median of 2 servers of") {
		t.Errorf("Rounds %d, first row %q; want 2 rounds named in the detail", f.Rounds, f.Frame().Text("detail", 0))
	}
	if f.Cost.Loop <= 0 || f.Cost.Thread <= 0 || f.PrintLine <= 0 || f.PrintWrite <= 0 || f.AsyncLine <= 0 {
		t.Errorf("non-positive cost in %+v", *f)
	}
	if f.Requests < 300 {
		t.Errorf("%d requests measured; want at least 300", f.Requests)
	}
	if f.PrintExtra() <= 0 {
		t.Errorf("print() line %v not dearer than its write %v", f.PrintLine, f.PrintWrite)
	}
	if f.Cost.ThreadStart <= 0 {
		t.Errorf("thread start %v; want positive", f.Cost.ThreadStart)
	}
	if fr := f.Frame(); fr.Len() != 7 {
		t.Errorf("Frame has %d rows; want 7", fr.Len())
	}
}

func TestMeasureFrameworkRejectsBadOptions(t *testing.T) {
	for _, o := range []FrameworkOptions{{Requests: 10}, {Rounds: -1}} {
		_, err := MeasureFramework(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), "Requests >= 100 and VUs, Lines, Repeat, Rounds not negative") {
			t.Errorf("%+v: err = %v; want one naming the options' bounds", o, err)
		}
	}
}

// TestPrintModelSteps: with costs, a sync print pays print()'s Python side
// beyond its writes as one burn before the lines, and an async one its
// appends inside the print step itself (TestPrintAtLeast); without costs,
// or printing nothing, only the print step runs.
func TestPrintModelSteps(t *testing.T) {
	costs := &Framework{PrintLine: 4 * time.Microsecond, PrintWrite: time.Microsecond, AsyncLine: 300 * time.Nanosecond}
	cases := []struct {
		endpoint string
		costs    *Framework
		burn     time.Duration // 0: none
	}{
		{DoPrint, costs, 1000 * 3 * time.Microsecond},
		{DoPrintAsync, costs, 0},
		{DontPrint, costs, 0},
		{DoPrint, nil, 0},
	}
	for _, c := range cases {
		p := PrintModel{Endpoint: c.endpoint, Lines: 1000, Costs: c.costs}
		mode, err := PrintMode000(c.endpoint)
		if err != nil {
			t.Fatal(err)
		}
		steps := p.steps(mode, nil)
		var burn time.Duration
		for _, s := range steps {
			if s.Kind == pymodel.KindBurn {
				burn += s.Duration
			}
		}
		if burn != c.burn || steps[len(steps)-1].Name != "print" {
			t.Errorf("%s (costs %v): burn %v, last step %q; want %v and the print", c.endpoint, c.costs != nil, burn, steps[len(steps)-1].Name, c.burn)
		}
	}
}

// TestPrintAtLeast: the async print step enqueues every line and uses at
// least its budget of thread CPU time, however little the enqueueing
// itself costs; with a zero budget it only enqueues.
func TestPrintAtLeast(t *testing.T) {
	for _, budget := range []time.Duration{0, 30 * time.Millisecond} {
		sink, err := workload.DevNullSink()
		if err != nil {
			t.Fatal(err)
		}
		pr, err := workload.NewPrinter(workload.PrintAsync, sink, 0)
		if err != nil {
			t.Fatal(err)
		}
		step := printAtLeast(pr, 100, "line", budget)
		if step.Name != "print" || step.IsIO() {
			t.Errorf("step %q, IO %v; want a CPU step named print", step.Name, step.IsIO())
		}
		used, err := threadCPU(func() error { return step.Func(context.Background()) })
		if err != nil {
			t.Fatal(err)
		}
		if err := pr.Close(); err != nil {
			t.Fatal(err)
		}
		sink.Close()
		if st := pr.Stats(); st.Lines != 100 {
			t.Errorf("budget %v: %d lines enqueued; want 100", budget, st.Lines)
		}
		if used < budget {
			t.Errorf("budget %v: the step used %v of thread CPU time; want at least the budget", budget, used)
		}
	}
}

// threadCPU runs fn on one locked OS thread and returns the thread CPU
// time it used.
func threadCPU(fn func() error) (time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, err := workload.ThreadCPUTime()
	if err != nil {
		return 0, err
	}
	if err := fn(); err != nil {
		return 0, err
	}
	end, err := workload.ThreadCPUTime()
	return end - start, err
}

func TestLoadCalibrationChecksValues(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		edit func(c *Calibration)
		want string
	}{
		{"negative framework", func(c *Calibration) { c.Framework.Cost.Loop = -time.Millisecond }, "FrameworkCost.Loop"},
		{"share out of range", func(c *Calibration) {
			c.ImageStepCosts = []StepCost{{Name: "decode", CPU: time.Millisecond, GILHeld: 1.5}}
		}, `step "decode"`},
		{"no image", func(c *Calibration) { c.Image = 0 }, "no image cost"},
		{"negative burst", func(c *Calibration) { c.SumSquaresBurst = -time.Second }, "sum of squares"},
		{"crowd without alone", func(c *Calibration) {
			c.ImageCrowd = []CrowdCost{{N: 6, CPU: time.Second}, {N: 20, CPU: time.Second}}
		}, "want 1 (alone)"},
		{"crowd not ascending", func(c *Calibration) {
			c.ImageCrowd = []CrowdCost{{N: 1, CPU: time.Second}, {N: 20, CPU: time.Second}, {N: 6, CPU: time.Second}}
		}, "want n ascending"},
		{"crowd zero cost", func(c *Calibration) {
			c.ImageCrowd = []CrowdCost{{N: 1, CPU: time.Second}, {N: 20, CPU: 0}}
		}, "want a positive cost"},
	}
	for _, tc := range cases {
		c := SourceMachine(0.2)
		c.Framework = &Framework{}
		tc.edit(c)
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		if err := SaveCalibration(path, c); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCalibration(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v; want one naming %q and the file", tc.name, err, tc.want)
		}
	}
}
