package cpython

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

func TestRealValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    Real
		want string
	}{
		{"ok", Real{App: testApp(time.Second), Endpoint: "/sleep"}, ""},
		{"no module", Real{App: App{Name: "x", Files: testFiles(), Server: Uvicorn}}, "MODULE:ATTR"},
		{"bad server", Real{App: App{Name: "x", Files: testFiles(), Module: "a:app", Server: "nginx"}}, "unknown Server"},
		{"endpoint not a path", Real{App: testApp(time.Second), Endpoint: "sleep"}, "must be a path"},
	}
	for _, tc := range tests {
		err := tc.r.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Validate() = %v; want %q", tc.name, err, tc.want)
		}
	}
	if got := (Real{App: testApp(time.Second), Endpoint: "/awaited"}).Label(); got != "real uvicorn/awaited" {
		t.Errorf("default label %q", got)
	}
	if got := (Real{Name: "real /offload", Endpoint: "/offload"}).RequestPath(); got != "/offload" {
		t.Errorf("RequestPath %q", got)
	}
}

// A Real that cannot start fails Start with the MissingError, leaving
// nothing behind; one with a bad listen address is refused.
func TestRealStartErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := Real{App: testApp(time.Second), Options: Options{Python: "/no/such/python"}}.Start(ctx, pymodel.Workload{}, strategy.StartOptions{})
	if err == nil || !strings.Contains(err.Error(), "/no/such/python") {
		t.Errorf("missing python: %v", err)
	}
	if err := (Real{App: testApp(time.Second), Options: Options{Python: "/no/such/python"}}).Available(ctx); err == nil {
		t.Error("Available with a missing python: nil")
	}
	needPython(t, "fastapi", "uvicorn")
	_, err = Real{App: testApp(time.Second)}.Start(ctx, pymodel.Workload{}, strategy.StartOptions{Addr: "192.0.2.1:0"})
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("non-loopback address: %v", err)
	}
}

// One bench.Run holds model strategies and Real ones, driven by the same
// burst through the same generator: every row counts its requests through
// bench/metrics, the real rows measure cpu_s and rss_mb and leave the
// model-only columns NaN, the traces show the loop serialising
// /async-block on both sides, and blocking the loop is slower than the
// limiter's threads on both sides.
func TestModelAndRealInOneRun(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	const wait, n = 100 * time.Millisecond, 6
	const SyncSleep, AsyncBlock = "/sleep", "/block"
	o := Options{Trace: true, StopGrace: time.Second}
	e := bench.Experiment{
		Strategies: []strategy.Strategy{
			strategy.Uvicorn{Name: SyncSleep}, Real{Name: RealPrefix + SyncSleep, App: testApp(wait), Endpoint: SyncSleep, Options: o},
			strategy.Uvicorn{Name: AsyncBlock, Async: true}, Real{Name: RealPrefix + AsyncBlock, App: testApp(wait), Endpoint: AsyncBlock, Options: o},
		},
		Workload: pymodel.Workload{Steps: []pymodel.Step{pymodel.Sleep(wait)}},
		Load:     load.Burst{N: n},
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("\n%v", s)
	want := []string{SyncSleep, "real " + SyncSleep, AsyncBlock, "real " + AsyncBlock}
	if got := s.Texts("strategy"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v; want %v", got, want)
	}
	el := map[string]float64{}
	for i, l := range want {
		if s.Float("count", i) != n || s.Float("errors", i) != 0 {
			t.Errorf("%s: count %v errors %v; want %d, 0", l, s.Float("count", i), s.Float("errors", i), n)
		}
		if rps := s.Float("rps", i); math.Abs(rps-n/s.Float("elapsed_s", i)) > 1e-9 {
			t.Errorf("%s: rps %v is not count / elapsed_s", l, rps)
		}
		el[l] = s.Float("elapsed_s", i)
		real := strings.HasPrefix(l, RealPrefix)
		if real && !(s.Float("cpu_s", i) >= 0 && s.Float("rss_mb", i) > 0) {
			t.Errorf("%s: cpu_s %v rss_mb %v; want measured", l, s.Float("cpu_s", i), s.Float("rss_mb", i))
		}
		if got := math.IsNaN(s.Float("gil_wait_ms", i)); got != real {
			t.Errorf("%s: gil_wait_ms %v; want NaN only for the real app", l, s.Float("gil_wait_ms", i))
		}
	}
	for _, side := range []string{"", RealPrefix} {
		// The blocked loop runs the sleeps one after another: n waits at least.
		if b := el[side+AsyncBlock]; b < float64(n)*wait.Seconds()*0.95 {
			t.Errorf("%s%s: elapsed %.3fs below %d x %v", side, AsyncBlock, b, n, wait)
		}
		if el[side+SyncSleep] >= el[side+AsyncBlock] {
			t.Errorf("%s: %s (%.3fs) not faster than %s (%.3fs)", side, SyncSleep, el[side+SyncSleep], AsyncBlock, el[side+AsyncBlock])
		}
		evs := bench.EventsOf(res.Trace, side+AsyncBlock)
		if got := trace.MaxOverlap(evs, trace.Handler); got != 1 {
			t.Errorf("%s%s: %d handlers at once; want 1 (one loop)", side, AsyncBlock, got)
		}
		if got := countRequests(trace.Snapshot{Events: evs}, trace.Handler); got != n {
			t.Errorf("%s%s: trace has %d requests; want %d", side, AsyncBlock, got, n)
		}
	}
}
