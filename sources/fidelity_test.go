//go:build fidelity

// The fidelity targets of the CPU-bound comparisons (000 print, 000 image
// upload at the source's load, 003 CPU), checked on this machine against
// real CPython: `bash scripts/fidelity.sh`. They are not part of
// scripts/test.sh: how close a CPU-bound model comes to the real stack
// depends on what else the machine runs, so run them on a quiet machine and
// read the tables they log.
package sources_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/lab"
	"github.com/conclab/conclab/sources/s000print"
	"github.com/conclab/conclab/sources/s000upload"
	"github.com/conclab/conclab/sources/s003"
)

// TestMain lets the models' process pools and prefork workers re-run this
// binary as their worker processes.
func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// calibration is this machine's, holding parts (the framework's and a
// source's): measured afresh into the calibration file when
// CONCLAB_FIDELITY_RECALIBRATE is set (scripts/fidelity.sh sets it unless
// given a CONCLAB_CALIBRATION), so that each comparison's model pays costs
// from the minute before its real runs; otherwise the file's (measured
// once when missing or stale).
func calibration(t *testing.T, parts ...string) *calib.Table {
	t.Helper()
	var tb *calib.Table
	var err error
	if os.Getenv("CONCLAB_FIDELITY_RECALIBRATE") != "" {
		tb, err = calib.Recalibrate(context.Background(), "", calib.File(), parts...)
	} else {
		tb, err = calib.Machine(context.Background(), "", parts...)
	}
	if err != nil {
		t.Fatalf("calibration: %v", err)
	}
	t.Logf("calibration (%s)\n%v", calib.File(), tb.Frame())
	return tb
}

// within runs e (model and real rows) and fails unless every pair agrees
// within tol on each metric.
func within(t *testing.T, e bench.Experiment, tol float64, metrics ...string) *lab.Agreement {
	t.Helper()
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatalf("%s: %v", e.Name, err)
	}
	return agreeing(t, e.Name, res.Summary, tol, metrics...)
}

// agreeing logs summary's agreement (and what each row's server spent) and
// fails unless every pair agrees within tol on each metric.
func agreeing(t *testing.T, name string, summary *frame.Frame, tol float64, metrics ...string) *lab.Agreement {
	t.Helper()
	a, err := lab.Agree(name, summary, tol, metrics...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%v\n%s", name, a.Frame, a.Line())
	// What each row's server spent: a real row's CPU beside the model's
	// tells costs that moved since the calibration from a model that
	// spends them in the wrong order.
	if sel, err := summary.Select("strategy", "count", "rps", "cpu_s"); err == nil {
		t.Logf("server CPU (cpu_s over count)\n%v", sel)
	}
	if a.Agree != a.Total {
		t.Errorf("%s: %s; want all within ±%.0f %%", name, a.Line(), tol*100)
	}
	return a
}

// 000 print: within ±25 % on rps and avg for all three endpoints, at the
// notebook's full load (100 VUs, 10 s). Each row is the median of three
// runs, each on a fresh server: one real uvicorn's CPU per request differs
// from the next one's by up to ±15 % here (0.18–0.26 ms for /dontPrint in
// one minute), and the model's costs are medians too.
func TestFidelity000Print(t *testing.T) {
	c, err := s000print.CostsFrom(calibration(t, calib.FrameworkPart, s000print.Part))
	if err != nil {
		t.Fatal(err)
	}
	k := s000print.Knobs{VUs: 100, Duration: 10 * time.Second, Lines: 1000} // the targets' load: no think time
	e := k.Versus(c, cpython.Options{})
	e.Repeat = 3
	within(t, e, lab.CPUTolerance, "avg_ms", "rps")
}

// 000 image upload at the source's load (20 VUs, the 8K image, think 1 s,
// two uploads each): avg within ±25 % for each strategy, and the model
// orders the strategies as the real run does.
//
// Each strategy's pair (model, then real) runs on a calibration measured
// just before it (with CONCLAB_FIDELITY_RECALIBRATE, as scripts/fidelity.sh
// runs it): Pillow's 8K pipeline alone cost 0.63 s in one calibration and
// 0.69–0.79 s in the next four here, and the four pairs take four minutes.
// In one run so, asyncio, ThreadPool and ProcessPool spent within 1–6 % of
// their real rows' CPU (cpu_s, logged), against 15–26 % in the run before
// on one calibration for all four. sync's real CPU per upload was 0.70 s in
// both runs and 0.92 s in another (the model's 0.86–0.89 s): twenty
// conversions at once in one process cost what their page faults do.
func TestFidelity000Upload(t *testing.T) {
	var name string
	var rows []*frame.Frame
	for _, st := range s000upload.Strategies() {
		c, err := s000upload.CostsFrom(calibration(t, calib.FrameworkPart, s000upload.Part))
		if err != nil {
			t.Fatal(err)
		}
		k := s000upload.Knobs{VUs: 20, Think: time.Second, Iterations: 2, Duration: 5 * time.Minute, Strategies: []string{st}}
		e, err := k.Versus(context.Background(), c, nil, cpython.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := bench.Run(context.Background(), e)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		name, rows = e.Name, append(rows, res.Summary)
	}
	summary, err := frame.Concat(name, rows...)
	if err != nil {
		t.Fatal(err)
	}
	a := agreeing(t, name, summary, lab.CPUTolerance, "avg_ms")
	model, real := byAvg(a.Summary, ""), byAvg(a.Summary, cpython.RealPrefix)
	t.Logf("fastest to slowest by avg: model %v, real %v", model, real)
	// The same ordering, except where the model has a tie (within 5 %),
	// which either order matches.
	avg := func(prefix, s string) float64 { v, _ := a.Summary.Get("strategy", prefix+s, "avg_ms"); return v }
	for i, x := range real {
		for _, y := range real[i+1:] {
			mx, my := avg("", x), avg("", y)
			if mx > my*1.05 {
				t.Errorf("ordering by avg: real puts %s before %s, the model %s after (%.0f vs %.0f ms); model %v, real %v", x, y, x, mx, my, model, real)
			}
		}
	}
}

// 003 CPU, 1 and 2 workers, Flask and FastAPI: elapsed within ±25 %. A
// one-worker row is the median of 3 runs, as in the notebook. A two-worker
// row's elapsed is a draw: how a burst splits over the workers, real or
// modelled, comes out anywhere from 5/5 to 10/0 (s003.Split), and its
// elapsed with it, from half the one-worker row's to all of it. Real
// FastAPI 2w's draws are bimodal: on one machine fresh servers gave one
// worker 9 or all 10 of the burst 3 times in 8 (s003.Split) and 6 times
// in 9 (this test), and 6/4 or 7/3 otherwise, so the median of nine runs
// lands on either mode (1.47 s, its one-worker row's time, in one run;
// 1.0 s in others). The two-worker rows compare
// the mean of 9 runs each instead — the expected elapsed over the split's
// draws, which one lopsided draw moves by a ninth of its difference —
// which is what the model is to reproduce.
func TestFidelity003CPU(t *testing.T) {
	// One measurement of the sum for both experiments.
	const n = 3_000_000
	sum, err := s003.MeasureSum(context.Background(), cpython.Options{}, n, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the sum of squares of %d: %v alone, %v a call ten at once", n, sum.Alone, sum.Burst)
	for _, rows := range []struct {
		servers []s003.Stack
		repeat  int
		mean    bool // compare the mean elapsed over the runs, not the median
	}{
		{[]s003.Stack{{Workers: 1, Threads: 10}, {FastAPI: true, Workers: 1}}, 3, false},
		{[]s003.Stack{{Workers: 2, Threads: 5}, {FastAPI: true, Workers: 2}}, 9, true},
	} {
		k := s003.Default
		k.SumN, k.CPU = n, rows.servers
		e := k.CPUVersus(sum.Cost(n), rows.repeat, cpython.Options{})
		if !rows.mean {
			within(t, e, lab.CPUTolerance, "elapsed_s")
			continue
		}
		res, err := bench.Run(context.Background(), e)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		means, err := meanElapsed(e, res)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: each run's elapsed_s, and their mean\n%v", e.Name, means)
		agreeing(t, fmt.Sprintf("%s, mean of %d runs", e.Name, rows.repeat), means, lab.CPUTolerance, "elapsed_s")
	}
}

// meanElapsed is a summary of res with each strategy's elapsed_s the mean
// over its runs (res.Loads: a strategy's repeats together, in e's order)
// and each run's elapsed beside it as the runs' list; count, cpu_s and rps
// are the summary's medians (what agreeing logs of each row's server).
func meanElapsed(e bench.Experiment, res *bench.Result) (*frame.Frame, error) {
	repeats := max(e.Repeat, 1)
	if len(res.Loads) != len(e.Strategies)*repeats {
		return nil, fmt.Errorf("%s: %d runs for %d strategies x %d", e.Name, len(res.Loads), len(e.Strategies), repeats)
	}
	out := frame.New(e.Name)
	for _, c := range []string{"strategy", "runs"} {
		if err := out.AddColumn(c, frame.Label); err != nil {
			return nil, err
		}
	}
	for _, c := range []string{"elapsed_s", "count", "cpu_s", "rps"} {
		if err := out.AddColumn(c, frame.Number); err != nil {
			return nil, err
		}
	}
	for k, s := range e.Strategies {
		var sum float64
		var runs []string
		for _, l := range res.Loads[k*repeats : (k+1)*repeats] {
			el := l.Elapsed.Seconds()
			sum += el
			runs = append(runs, fmt.Sprintf("%.2f", el))
		}
		label := s.Label()
		if err := out.Append(frame.Row{"strategy": label, "runs": strings.Join(runs, " "),
			"elapsed_s": sum / float64(repeats), "count": res.Value(label, "count"),
			"cpu_s": res.Value(label, "cpu_s"), "rps": res.Value(label, "rps")}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// byAvg lists source 000's strategies from the fastest mean latency to the
// slowest, on the side whose labels carry prefix.
func byAvg(f *frame.Frame, prefix string) []string {
	out := slices.Clone(s000upload.Strategies())
	v := func(s string) float64 { x, _ := f.Get("strategy", prefix+s, "avg_ms"); return x }
	sort.SliceStable(out, func(i, j int) bool { return v(out[i]) < v(out[j]) })
	return out
}
