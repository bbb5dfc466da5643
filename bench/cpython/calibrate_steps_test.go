package cpython

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// checkImageStepCosts asserts a measured calibration's per-step fields:
// the four real steps in order, each with a cost and a GIL probe, shares in 0..1,
// the pipeline their sum, one model step per real step carrying the share,
// and the Frame showing them (TestCalibrate calls it: it needs Python and
// Pillow, and says so when they are missing).
func checkImageStepCosts(t *testing.T, c *Calibration) {
	t.Helper()
	var names []string
	var sum time.Duration
	for _, sc := range c.ImageStepCosts {
		names = append(names, sc.Name)
		sum += sc.CPU
		if sc.CPU <= 0 || sc.Probe < 0 || sc.Reference <= 0 || sc.GILHeld < 0 || sc.GILHeld > 1 {
			t.Errorf("step %+v: want positive times and a share in 0..1", sc)
		}
	}
	if want := []string{"decode", "convert RGB", "rotate 180 x4", "encode"}; !slices.Equal(names, want) {
		t.Errorf("ImageStepCosts names %v; want %v", names, want)
	}
	if sum != c.Image {
		t.Errorf("steps' CPU sums to %v; Image is %v", sum, c.Image)
	}
	if c.ImageGILHeld < 0 || c.ImageGILHeld > 1 {
		t.Errorf("ImageGILHeld = %v", c.ImageGILHeld)
	}
	if c.Hash.CPU <= 0 || c.Hash.Name != "sha256 (hashlib)" || c.Hash.GILHeld < 0 || c.Hash.GILHeld > 1 {
		t.Errorf("Hash = %+v", c.Hash)
	}
	steps := c.ImageSteps(pymodel.ThreadExecutor)
	if len(steps) != len(c.ImageStepCosts) {
		t.Fatalf("ImageSteps: %d steps for %d real steps", len(steps), len(c.ImageStepCosts))
	}
	for i, s := range steps {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
		if s.Name != c.ImageStepCosts[i].Name || s.Call != pymodel.ThreadExecutor {
			t.Errorf("model step %d = %v; want %q called as thread_executor", i, s, c.ImageStepCosts[i].Name)
		}
		if d := s.HeldShare() - c.ImageStepCosts[i].GILHeld; d < -1e-9 || d > 1e-9 {
			t.Errorf("model step %v holds %v; measured %v", s, s.HeldShare(), c.ImageStepCosts[i].GILHeld)
		}
	}
	var crowd []int
	for _, p := range c.ImageCrowd {
		crowd = append(crowd, p.N)
		if p.CPU <= 0 {
			t.Errorf("crowd point %+v: want a positive cost", p)
		}
	}
	if want := []int{1, 6, 20}; !slices.Equal(crowd, want) {
		t.Errorf("ImageCrowd measured at %v at once; want %v", crowd, want)
	}
	conv := c.ConvertImageStep(pymodel.Block)
	for _, p := range c.ImageCrowd {
		if cr := conv.Crowd; cr == nil || cr.Factor(p.N) != float64(p.CPU)/float64(c.Image) {
			t.Errorf("ConvertImageStep's crowd %+v at %d: want ImageCrowd relative to Image", cr, p.N)
		}
	}
	if err := conv.Validate(); err != nil {
		t.Error(err)
	}
	f := c.Frame()
	var shown []string
	for i := range f.Len() {
		shown = append(shown, f.Text("step", i))
	}
	for _, n := range append(names, "sha256 (hashlib)", "image convert, 20 at once") {
		if !slices.Contains(shown, n) {
			t.Errorf("Frame() has no row %q:\n%v", n, f)
		}
	}
}

// Stated costs with measured steps: the source machine's 100 ms cut as
// this machine's pipeline is, with its shares.
func TestWithImageCosts(t *testing.T) {
	t.Parallel()
	here := &Calibration{Image: 400 * time.Millisecond, ImageGILHeld: 0.05, ImageStepCosts: []StepCost{
		{Name: "decode", CPU: 100 * time.Millisecond, Probe: 0.27, Reference: 0.3, GILHeld: 0.1},
		{Name: "rotate 180 x4", CPU: 300 * time.Millisecond, Probe: 0.3, Reference: 0.3, GILHeld: 0},
	}}
	src := SourceMachine(1).WithImageCosts(here)
	steps := src.ImageSteps(pymodel.ProcessExecutor)
	if len(steps) != 2 || steps[0].Duration != 25*time.Millisecond || steps[1].Duration != 75*time.Millisecond {
		t.Fatalf("ImageSteps = %v; want 25 ms and 75 ms", steps)
	}
	if h := steps[0].HeldShare(); h < 0.0999 || h > 0.1001 || !steps[1].ReleasesGIL || steps[0].Payload == 0 {
		t.Errorf("ImageSteps = %+v", steps)
	}
	if src.ImageGILHeld != 0.05 || src.CPUs != 8 || SourceMachine(1).ImageStepCosts != nil {
		t.Errorf("WithImageCosts changed the wrong things: %+v", src)
	}
	// Stated costs alone: two parts, held then released.
	two := SourceMachine(0.2).ImageSteps("")
	if len(two) != 2 || two[0].Duration != 20*time.Millisecond || two[0].ReleasesGIL || !two[1].ReleasesGIL {
		t.Errorf("SourceMachine(0.2).ImageSteps = %v", two)
	}
	if s := here.WithImageCosts(nil); len(s.ImageStepCosts) != 2 {
		t.Errorf("WithImageCosts(nil) dropped the steps")
	}
	if !strings.Contains(here.Frame().Text("detail", 1), "GIL probe") {
		t.Errorf("Frame:\n%v", here.Frame())
	}
}
