package bench_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// Source 001 in a cell: ten requests at once against three endpoints.
func ExampleRun() {
	strategies, err := bench.Presets("/async-ok", "/async-block")
	if err != nil {
		panic(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(100 * time.Millisecond)),
		Load:       load.Burst{N: 10},
	})
	if err != nil {
		panic(err)
	}
	s := res.Summary
	for i := 0; i < s.Len(); i++ {
		fmt.Println(s.Text("strategy", i), s.Float("count", i), "requests")
	}
	fmt.Println("blocking the loop is 5x slower or worse:", s.Float("elapsed_s", 1) > 5*s.Float("elapsed_s", 0))
	fmt.Println("slow callbacks:", s.Float("slow_callbacks", 0), s.Float("slow_callbacks", 1))
	// Output:
	// /async-ok 10 requests
	// /async-block 10 requests
	// blocking the loop is 5x slower or worse: true
	// slow callbacks: 0 10
}

func TestRunJoinsServerColumns(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	step := bench.Func("count", false, func(ctx context.Context) error {
		calls.Add(1)
		return nil
	})
	strategies, err := bench.Presets("sync", "goroutines")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Name:       "custom",
		Strategies: strategies,
		Workload:   bench.Steps(step, bench.CPU(100_000)),
		Load:       load.Closed{VUs: 2, Iterations: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 20 {
		t.Errorf("custom step ran %d times; want 20", calls.Load())
	}
	s := res.Summary
	if s.Len() != 2 {
		t.Fatalf("summary has %d rows; want 2", s.Len())
	}
	for _, c := range append([]string{"strategy", "count", "rps", "p95_ms"}, strategy.ServerColumns...) {
		if !s.Has(c) {
			t.Errorf("summary lacks column %q: %v", c, s.Columns())
		}
	}
	if s.Float("count", 0) != 10 || s.Float("cpu_s", 0) <= 0 || s.Float("service_ms", 0) <= 0 {
		t.Errorf("summary row 0: %v", s.Row(0))
	}
	if res.Series.Len() == 0 || res.Distribution.Len() == 0 {
		t.Error("empty series or distribution")
	}
	if !strings.Contains(res.HTML(), "goroutines") {
		t.Error("HTML lacks the strategy")
	}
}

// Workloads gives each named strategy its own handler body.
func TestRunPerStrategyWorkloads(t *testing.T) {
	t.Parallel()
	var a, b atomic.Int64
	count := func(n *atomic.Int64) pymodel.Workload {
		return bench.Steps(bench.Func("count", false, func(context.Context) error { n.Add(1); return nil }))
	}
	strategies, err := bench.Presets("goroutines", "serial")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workloads:  map[string]pymodel.Workload{"goroutines": count(&a), "serial": count(&b)},
		Load:       load.Burst{N: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.Load() != 3 || b.Load() != 3 {
		t.Errorf("own workloads ran %d and %d times; want 3 and 3", a.Load(), b.Load())
	}
	if res.Name == "none" || res.Name == "" {
		t.Errorf("result name %q; want one naming the workloads", res.Name)
	}
}

func TestRunBadInput(t *testing.T) {
	t.Parallel()
	good, _ := bench.Presets("goroutines")
	w := bench.Steps(bench.Sleep(time.Millisecond))
	cases := []struct {
		name string
		e    bench.Experiment
		want string
	}{
		{"no strategies", bench.Experiment{Workload: w, Load: load.Burst{N: 1}}, "no strategies"},
		{"no load", bench.Experiment{Strategies: good, Workload: w}, "no load"},
		{"bad step", bench.Experiment{Strategies: good, Workload: bench.Steps(bench.CPU(0)), Load: load.Burst{N: 1}}, "n must be positive"},
		{"bad strategy", bench.Experiment{Strategies: []strategy.Strategy{strategy.Bounded{Name: "x"}}, Workload: w, Load: load.Burst{N: 1}}, "positive Limit"},
		{"nil strategy", bench.Experiment{Strategies: []strategy.Strategy{nil}, Workload: w, Load: load.Burst{N: 1}}, "nil"},
		{"remote external", bench.Experiment{Strategies: []strategy.Strategy{strategy.External{URL: "http://example.com"}}, Load: load.Burst{N: 1}}, "loopback"},
		{"bad load", bench.Experiment{Strategies: good, Workload: w, Load: load.Burst{N: -1}}, "load"},
		{"bad path", bench.Experiment{Strategies: good, Workload: w, Load: load.Burst{N: 1}, Request: load.Target{URL: "http://example.com/"}}, "path"},
		{"workloads name a stranger", bench.Experiment{Strategies: good, Workloads: map[string]pymodel.Workload{"tornado": w}, Load: load.Burst{N: 1}}, `Workloads names "tornado"`},
		{"bad own workload", bench.Experiment{Strategies: good, Workloads: map[string]pymodel.Workload{"goroutines": bench.Steps(bench.CPU(0))}, Load: load.Burst{N: 1}}, `strategy "goroutines"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := bench.Run(context.Background(), c.e)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Run: err = %v; want one mentioning %q", err, c.want)
			}
		})
	}
	if _, err := bench.Presets("sync", "tornado"); err == nil || !strings.Contains(err.Error(), "tornado") {
		t.Errorf("Presets(unknown) = %v", err)
	}
}

func ExamplePresets() {
	strategies, err := bench.Presets("sync", "/async-block", "gunicorn 2w x 5t", "goroutines")
	if err != nil {
		panic(err)
	}
	for _, s := range strategies {
		fmt.Println(s)
	}
	_, err = bench.Presets("uwsgi")
	fmt.Println(err != nil)
	// Output:
	// sync: uvicorn 1w, def
	// /async-block: uvicorn 1w, limiter 40, async def, io block, 8 CPUs
	// gunicorn 2w x 5t: gunicorn 2w x 5t, def
	// goroutines: goroutines
	// true
}

func ExampleServe() {
	s, err := bench.Preset("goroutines")
	if err != nil {
		panic(err)
	}
	srv, err := bench.Serve(context.Background(), s, bench.Steps(bench.CPU(1000)))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	fmt.Println(strings.HasPrefix(srv.URL(), "http://127.0.0.1:"))
	// Output: true
}

// A CPU-bound server in the same process is not taken for a generator-bound
// run: Run hands the load generator the server's own CPU time, which the
// self-check leaves out. The check's limit is lowered to 30 % of the CPUs so
// that the burns alone would trip it: with the server's CPU counted as the
// generator's (ServerCPU reporting nothing) the warning appears.
func TestRunLeavesServerCPUOutOfSelfCheck(t *testing.T) {
	strategies, err := bench.Presets("goroutines")
	if err != nil {
		t.Fatal(err)
	}
	// Enough burns for about 0.4 s on any number of CPUs (the check needs
	// 200 ms of run).
	n, burn := 5*runtime.GOMAXPROCS(0), 80*time.Millisecond
	run := func(o load.Options) *bench.Result {
		t.Helper()
		// A low threshold: the burns' 0.8 s of CPU stays above a tenth of
		// the machine unless other processes take nine tenths of it, and
		// the generator's own few milliseconds stay far below.
		o.CPUWarn = 0.1
		res, err := bench.Run(context.Background(), bench.Experiment{
			Strategies: strategies,
			Workload:   bench.Steps(bench.BurnNoGIL(burn)),
			Load:       load.Burst{N: n},
			Options:    o,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	generatorBound := func(res *bench.Result) bool {
		for _, w := range res.Warnings {
			if strings.Contains(w, "bounded by the generator") {
				return true
			}
		}
		return false
	}
	res := run(load.Options{})
	if generatorBound(res) {
		t.Errorf("warning for a CPU-bound in-process server: %q", res.Warnings)
	}
	if cpu := res.Summary.Float("cpu_s", 0); cpu < 0.8*float64(n)*burn.Seconds() {
		t.Errorf("server cpu_s = %.3f; want about %v (the CPU the self-check leaves out)", cpu, time.Duration(n)*burn)
	}
	if res := run(load.Options{ServerCPU: func() time.Duration { return 0 }}); !generatorBound(res) {
		t.Errorf("with the server's CPU not left out, no warning: %q (elapsed %.3fs)", res.Warnings, res.Summary.Float("elapsed_s", 0))
	}
}

// Thresholds in an experiment judge each strategy's run: the summary's
// thresholds_failed column says which kept the latency under the limit.
// Five requests of 20 ms at once: goroutines answer them together, a
// serial server one after another (the last after 100 ms).
func TestRunThresholdsColumn(t *testing.T) {
	t.Parallel()
	strategies, err := bench.Presets("goroutines", "serial")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(20 * time.Millisecond)),
		Load:       load.Burst{N: 5},
		Options:    load.Options{Thresholds: []string{"p95<70ms", "errors<1%"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	failed := map[string]float64{}
	for i := 0; i < s.Len(); i++ {
		failed[s.Text("strategy", i)] = s.Float("thresholds_failed", i)
		if s.Float("thresholds", i) != 2 {
			t.Errorf("%s: thresholds = %v; want 2", s.Text("strategy", i), s.Float("thresholds", i))
		}
	}
	if failed["goroutines"] != 0 || failed["serial"] != 1 {
		t.Errorf("thresholds_failed %v; want goroutines 0, serial 1 (p95 ≈ 100 ms)\n%v", failed, s)
	}
}
