package pymodel_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// A seq step is one call: its steps validate with it, take no call of
// their own, and run one after another on the caller's thread (RunStep
// burns their CPU time in full).
func TestSeqStep(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    pymodel.Step
		want string
	}{
		{pymodel.Seq("empty"), "has no steps"},
		{pymodel.Seq("f", pymodel.Step{Kind: pymodel.KindBurn, Duration: time.Millisecond, Call: pymodel.ThreadExecutor}), "has call"},
		{pymodel.Seq("f", pymodel.Step{Kind: pymodel.KindBurn, Duration: time.Millisecond, GILReleased: -0.1}), "GILReleased must be between 0 and 1"},
		{pymodel.Step{Kind: pymodel.KindSleep, Duration: time.Millisecond, GILReleased: 0.5}, "GILReleased is for CPU steps"},
		{pymodel.Step{Kind: pymodel.KindBurn, Duration: time.Millisecond, GILReleased: 0.5, ReleasesGIL: true}, "contradict"},
		{pymodel.Step{Kind: pymodel.KindImage, Arg: "png", GILReleased: 0.5}, "needs a burn or cpu step"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v.Validate() = %v; want %q", c.s, err, c.want)
		}
	}
	if _, err := pymodel.ParseStep("burn=1ms:held=1.5"); err == nil || !strings.Contains(err.Error(), "between 0 and 1") {
		t.Errorf("held=1.5: %v", err)
	}
	s := pymodel.Seq("convert_image", pymodel.BurnHeld(20*time.Millisecond, 0.3), pymodel.BurnNoGIL(20*time.Millisecond))
	if s.IsIO() || !s.Portable() || s.HeldShare() != 1 {
		t.Errorf("%v: want portable CPU work", s)
	}
	cpu, err := pymodel.RunStep(context.Background(), s)
	if err != nil || cpu < 40*time.Millisecond {
		t.Errorf("RunStep(%v) = %v, %v; want at least 40ms of CPU", s, cpu, err)
	}
	// Sent whole to a process pool worker.
	pool, err := pymodel.NewProcessPool(context.Background(), pymodel.PoolConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	res, err := pool.Run(context.Background(), s)
	if err != nil || res.CPU < 40*time.Millisecond {
		t.Errorf("pool.Run(%v) = %+v, %v; want at least 40ms of CPU", s, res, err)
	}
}
