package strategy_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// startTraced starts s with tracing on.
func startTraced(t testing.TB, s strategy.Strategy, w pymodel.Workload) strategy.Server {
	t.Helper()
	srv, err := s.Start(context.Background(), w, strategy.StartOptions{TraceEvents: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func snapshot(t testing.TB, srv strategy.Server) trace.Snapshot {
	t.Helper()
	tr, err := srv.Trace()
	if err != nil {
		t.Fatal(err)
	}
	if tr.Dropped != 0 {
		t.Fatalf("trace dropped %d events", tr.Dropped)
	}
	return tr
}

// Source 001 and source 003 (I/O) over HTTP, with the presets: the number of
// waves of I/O waits is read from the trace (a wave starts where a sleep
// starts more than half a wait after the previous one), an exact fact a
// loaded machine cannot blur; the elapsed time only has to cover the waves.
func TestSleepWaves(t *testing.T) {
	t.Parallel()
	offload2 := preset(t, "/offload").(strategy.Uvicorn)
	offload2.CPUs = 2
	cases := []struct {
		name    string
		s       strategy.Strategy
		n       int
		waves   []int // sizes of the waves of sleeps
		running int   // most handlers running at once; 0: not checked
	}{
		{"/sync-sleep", preset(t, "/sync-sleep"), 10, []int{10}, 10},
		{"/async-block", preset(t, "/async-block"), 10, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1},
		{"/async-ok", preset(t, "/async-ok"), 10, []int{10}, 10},
		{"/offload 8 CPUs", preset(t, "/offload"), 10, []int{10}, 10},
		{"/offload 2 CPUs", offload2, 10, []int{6, 4}, 10},
		{"/sync-sleep x100", preset(t, "/sync-sleep"), 100, []int{40, 40, 20}, 40},
		{"flask 1w x 5t", preset(t, "flask 1w x 5t"), 10, []int{5, 5}, 5},
		{"flask 1w x 10t", preset(t, "flask 1w x 10t"), 10, []int{10}, 10},
		{"fastapi 1w", preset(t, "fastapi 1w"), 10, []int{10}, 10},
		{"goroutines", preset(t, "goroutines"), 10, []int{10}, 10},
		{"bounded 10", preset(t, "bounded 10"), 20, []int{10, 10}, 10},
		{"serial", preset(t, "serial"), 3, []int{1, 1, 1}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := startTraced(t, c.s, sleepW)
			d := burst(t, srv.URL(), c.n)
			tr := snapshot(t, srv)
			if got := trace.Waves(tr.Events, trace.IO); !slices.Equal(got, c.waves) {
				t.Errorf("waves of sleeps = %v; want %v", got, c.waves)
			}
			if got := trace.MaxOverlap(tr.Events, trace.Handler); c.running > 0 && got != c.running {
				t.Errorf("most handlers running at once = %d; want %d", got, c.running)
			}
			if got := len(trace.Filter(tr.Events, trace.Handler)); got != c.n {
				t.Errorf("handler intervals = %d; want %d", got, c.n)
			}
			if min := time.Duration(len(c.waves)) * wait; d < min {
				t.Errorf("burst took %v; %d waves of %v take at least %v", d, len(c.waves), wait, min)
			}
			st := srv.Stats()
			if st.Requests < int64(c.n) || st.Errors != 0 {
				t.Errorf("stats %+v; want %d requests, no errors", st, c.n)
			}
		})
	}
}

// On /async-block no two handlers overlap, and the loop is blocked for the
// whole of each blocking sleep: the request's loop_blocked interval holds
// its io interval.
func TestTraceAsyncBlock(t *testing.T) {
	t.Parallel()
	srv := startTraced(t, preset(t, "/async-block"), pymodel.Workload{Steps: []pymodel.Step{pymodel.Sleep(50 * time.Millisecond)}})
	burst(t, srv.URL(), 8)
	tr := snapshot(t, srv)
	if got := trace.MaxOverlap(tr.Events, trace.Handler); got != 1 {
		t.Errorf("handlers running at once = %d; want 1", got)
	}
	blocked := map[int64]trace.Event{}
	for _, e := range tr.Events {
		if e.Phase == trace.LoopBlocked && e.Duration() >= 50*time.Millisecond {
			blocked[e.Request] = e
		}
	}
	ios := trace.Filter(tr.Events, trace.IO)
	if len(ios) != 8 {
		t.Fatalf("io intervals = %d; want 8", len(ios))
	}
	for _, io := range ios {
		b, ok := blocked[io.Request]
		if !ok {
			t.Errorf("request %d: no loop_blocked interval of ≥ 50 ms", io.Request)
			continue
		}
		if io.Thread != pymodel.LoopThread || io.Start < b.Start || io.End > b.End {
			t.Errorf("request %d: io %+v not inside the loop's blocked interval %+v", io.Request, io, b)
		}
	}
}

// Under the GIL model, no two threads of one process hold the GIL at once:
// ten threads of CPU work take turns (forced hand-offs every 5 ms); two
// prefork workers each have their own GIL, so across workers two holders
// can overlap.
func TestTraceGILExclusive(t *testing.T) {
	t.Parallel()
	cpu := pymodel.Workload{Steps: []pymodel.Step{pymodel.Burn(20 * time.Millisecond)}}
	cases := []struct {
		name    string
		s       strategy.Strategy
		workers int
	}{
		{"flask 1w x 10t", preset(t, "flask 1w x 10t"), 1},
		{"sync (anyio threads)", preset(t, "sync"), 1},
		// Balanced, so that both workers serve (greedy may give one all).
		{"flask 2w x 5t", strategy.Gunicorn{Name: "flask 2w x 5t", Workers: 2, Threads: 5, Accept: strategy.AcceptBalanced}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := startTraced(t, c.s, cpu)
			burst(t, srv.URL(), 10)
			tr := snapshot(t, srv)
			if got := trace.MaxOverlapPerWorker(tr.Events, trace.GIL); got != 1 {
				t.Errorf("threads of one process holding the GIL at once = %d; want 1", got)
			}
			holders := map[int]map[string]bool{}
			for _, e := range trace.Filter(tr.Events, trace.GIL) {
				if holders[e.Worker] == nil {
					holders[e.Worker] = map[string]bool{}
				}
				holders[e.Worker][e.Thread] = true
			}
			if len(holders) != c.workers {
				t.Errorf("GIL holders in %d processes; want %d", len(holders), c.workers)
			}
			if n := len(trace.Filter(tr.Events, trace.GILWait)); n < 5 {
				t.Errorf("gil_wait intervals = %d; ten CPU-bound threads must wait for it", n)
			}
			if got := len(trace.Filter(tr.Events, trace.Handler)); got != 10 {
				t.Errorf("handler intervals = %d; want 10 (requests renumbered across workers)", got)
			}
			reqs := map[int64]bool{}
			for _, e := range trace.Filter(tr.Events, trace.Handler) {
				reqs[e.Request] = true
			}
			for i := int64(1); i <= 10; i++ {
				if !reqs[i] {
					t.Errorf("no handler for request %d (numbers %v)", i, reqs)
				}
			}
		})
	}
}

// Tracing is off unless asked for, and a trace stops at its cap, counting
// what it dropped.
func TestTraceOffAndCap(t *testing.T) {
	t.Parallel()
	off := start(t, preset(t, "/sync-sleep"), pymodel.Workload{Name: "none"})
	burst(t, off.URL(), 5)
	if tr, err := off.Trace(); err != nil || len(tr.Events) != 0 {
		t.Errorf("untraced server: trace %d events, err %v; want none", len(tr.Events), err)
	}
	srv, err := preset(t, "/sync-sleep").Start(context.Background(), pymodel.Workload{Name: "none"}, strategy.StartOptions{TraceEvents: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	burst(t, srv.URL(), 20)
	tr, err := srv.Trace()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 10 || tr.Dropped == 0 || tr.Cap != 10 {
		t.Errorf("capped trace: %d events, %d dropped, cap %d; want 10, > 0, 10", len(tr.Events), tr.Dropped, tr.Cap)
	}
}
