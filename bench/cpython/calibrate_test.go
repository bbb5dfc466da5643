package cpython

import (
	"context"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

func TestCalibrate(t *testing.T) {
	needPython(t, "PIL")
	if testing.Short() {
		t.Skip("real-process test")
	}
	c, err := Calibrate(context.Background(), CalibrateOptions{ImageSize: ImageSize{1920, 1080}, N: 300_000, Repeat: 1, Inserts: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", c.Frame())
	if c.Image <= 0 || c.Image > 10*time.Second || c.ImageWidth != 1920 || c.ImageGILHeld < 0 || c.ImageGILHeld > 1 {
		t.Errorf("image calibration implausible: %+v", c)
	}
	if c.SumSquares <= 0 || c.SumSquaresN != 300_000 || c.Insert <= 0 || c.DBKind != "sqlite" {
		t.Errorf("calibration implausible: %+v", c)
	}
	if c.SumSquaresBurst <= 0 || c.SumSquaresThreaded <= 0 {
		t.Errorf("no burst of ten measured: %+v", c)
	}
	if got, want := c.SumSquaresCost(600_000), 2*c.SumSquaresBurst; got < want-time.Microsecond || got > want+time.Microsecond {
		t.Errorf("SumSquaresCost(2N) = %v; want twice the burst's cost per call, %v", got, want)
	}
	if f := c.Frame(); f.Len() != 3+len(c.ImageStepCosts)+len(c.ImageCrowd)+1 || f.Float("cost_ms", 0) <= 0 {
		t.Errorf("Frame() =\n%v", f)
	}
	checkImageStepCosts(t, c)
	// The model steps carry the measured costs and validate.
	var total time.Duration
	for _, s := range c.ImageSteps(pymodel.ProcessExecutor) {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
		if s.Call != pymodel.ProcessExecutor || s.Payload == 0 {
			t.Errorf("step %v: want a process_executor call with a payload", s)
		}
		total += s.Duration
	}
	if d := total - c.Image; d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("image steps sum to %v; want %v", total, c.Image)
	}
	for name, h := range c.Handlers000() {
		if err := (pymodel.Workload{Steps: h.Steps}).Validate(); err != nil {
			t.Errorf("handler %s: %v", name, err)
		}
	}
	if !c.Handlers000()["asyncio"].Async || c.Handlers000()["sync"].Async {
		t.Error("Handlers000: asyncio must be async def, sync a def handler")
	}
}

func TestSourceMachine(t *testing.T) {
	t.Parallel()
	c := SourceMachine(2) // clamped
	if c.CPUs != 8 || c.Image != 100*time.Millisecond || c.ImageGILHeld != 1 {
		t.Errorf("SourceMachine = %+v", c)
	}
	if got := c.SumSquaresCost(1_000_000); got != 250*time.Millisecond {
		t.Errorf("SumSquaresCost(1e6) = %v; want 250ms", got)
	}
	if s := c.SumSquaresStep(1_000_000); s.Kind != pymodel.KindBurn || s.ReleasesGIL {
		t.Errorf("SumSquaresStep = %+v; want a GIL-holding burn", s)
	}
}
