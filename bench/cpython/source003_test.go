package cpython

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/frame"
)

// Source 003's I/O waves, model vs real gunicorn: 10 requests at once to a
// handler sleeping 300 ms take two waves on Flask 1w x 5t, one on 1w x 10t,
// one on FastAPI (its own 40-thread pool) — real within ±10 % of [waves x
// wait, + zero-wait cost], model within ±10 % of waves x wait.
func TestCompare003IO(t *testing.T) {
	needPython(t, "flask", "gunicorn", "fastapi", "uvicorn")
	if testing.Short() {
		t.Skip("real-process timing test")
	}
	const wait = 300 * time.Millisecond
	waves := []int{2, 1, 1}
	ctx := context.Background()
	for i, c := range Cases003IO {
		name := fmt.Sprintf("%+v", c)
		retryOnce(t, name, func() (bool, string) {
			f, err := Compare003(ctx, Options{}, ModeIO, []Case003{c}, 10, wait, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := float64(waves[i]) * wait.Seconds()
			real, model, fixed := f.Float("real", 0), f.Float("model", 0), f.Float("fixed", 0)
			t.Logf("%-28s model %.3fs, real %.3fs (+ fixed %.3fs), arithmetic %.3fs", f.Text("strategy", 0), model, real, fixed, want)
			switch {
			case !inBand(real, want, want+fixed, 0.10):
				return false, fmt.Sprintf("real %.3fs; want %.3fs..%.3fs ±10%%", real, want, want+fixed)
			case !inBand(model, want, want, 0.10):
				return false, fmt.Sprintf("model %.3fs; want %.3fs ±10%%", model, want)
			case f.Float("agree", 0) != 1:
				return false, f.Text("verdict", 0)
			}
			return true, ""
		})
	}
}

// Source 003's CPU handler: a second worker process cuts the batch time,
// threads do not — on real gunicorn and in the model with calibrated costs;
// the one-worker batches agree within ±25 % of [model, model + the real
// stack's cost of the same burst with n=0 + the GIL hand-off cost between
// threads that calibration measured and the model does not charge].
// Each batch is the best of three (timeit's rule: other processes only slow
// a run down). The claim needs two free cores: each try first probes how many this
// process gets, and a try on a machine loaded by others (under 1.5) is
// inconclusive. Up to three tries; with none conclusive the test skips and
// says why.
func TestCompare003CPU(t *testing.T) {
	needPython(t, "flask", "gunicorn", "fastapi", "uvicorn", "PIL")
	if testing.Short() {
		t.Skip("real-process timing test")
	}
	const n = 500_000 // the source's 10,000,000 scaled to ~35 ms here
	ctx := context.Background()
	cpuTries(t, "CPU workers", func(try int, cores float64) (bool, string) {
		cal, err := Calibrate(ctx, CalibrateOptions{ImageSize: ImageSize{320, 180}, N: n, Repeat: 3, Inserts: 1})
		if err != nil {
			t.Fatal(err)
		}
		f, err := Compare003(ctx, Options{BestOf: 3}, ModeCPU, Cases003CPU, 10, 0, n, cal)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("try %d (%.2f cores): sum of squares %v calibrated\n%v", try, cores, cal.SumSquares, f)
		why := check003CPU(f)
		return why == "", why
	})
}

func check003CPU(f *frame.Frame) string {
	// Rows follow Cases003CPU: Flask 1w, Flask 2w, FastAPI 1w, FastAPI 2w.
	// Real FastAPI 2w is left out of the ordering: uvicorn workers race to
	// accept, and one often takes 8 or 9 of a simultaneous burst of 10 (seen
	// here by the pids answering), so its gain varies from none to half. The
	// model spreads requests round-robin. The frame shows both.
	pairs := []struct {
		one, two int
		cols     []string
	}{{0, 1, []string{"real", "model"}}, {2, 3, []string{"model"}}}
	for _, p := range pairs {
		for _, col := range p.cols {
			if f.Float(col, p.two) > 0.9*f.Float(col, p.one) {
				return fmt.Sprintf("%s: %s %.3fs vs %s %.3fs; want the 2-worker server at least 10 %% faster",
					col, f.Text("strategy", p.two), f.Float(col, p.two), f.Text("strategy", p.one), f.Float(col, p.one))
			}
		}
	}
	// Agreement on the one-worker batches; with two workers the real
	// server's split of the burst varies (see above).
	for _, i := range []int{0, 2} {
		if f.Float("agree", i) != 1 {
			return f.Text("strategy", i) + ": " + f.Text("verdict", i)
		}
	}
	return ""
}
