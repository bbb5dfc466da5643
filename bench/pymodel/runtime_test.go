package pymodel_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/internal/tracecheck"
)

// wait is the scaled-down 1 s wait of the sources (never below 100 ms).
const wait = 200 * time.Millisecond

func startRuntime(t *testing.T, cfg pymodel.Config) *pymodel.Runtime {
	t.Helper()
	rt, err := pymodel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// burst sends n requests at once and returns the time until the last one
// finished.
func burst(t *testing.T, rt *pymodel.Runtime, n int, h pymodel.Handler) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := rt.Handle(ctx, h); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("request failed: %v", err)
	}
	return time.Since(start)
}

// sleepStep is a wait made with call.
func sleepStep(call pymodel.Call) pymodel.Step {
	s := pymodel.Sleep(wait)
	s.Call = call
	return s
}

// Source 001: ten concurrent 1 s waits (scaled) against each endpoint. The
// waves of sleeps are read from the trace — exact on a loaded machine —
// and the batch only has to take at least that many waits.
func TestSource001(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		cfg   pymodel.Config
		n     int
		h     pymodel.Handler
		waves float64
	}{
		{"/sync-sleep", pymodel.Config{}, 10, pymodel.Handler{Steps: []pymodel.Step{sleepStep(pymodel.Block)}}, 1},
		{"/async-block", pymodel.Config{}, 10, pymodel.Handler{Async: true, Steps: []pymodel.Step{sleepStep(pymodel.Block)}}, 10},
		{"/async-ok", pymodel.Config{}, 10, pymodel.Handler{Async: true, Steps: []pymodel.Step{sleepStep(pymodel.Await)}}, 1},
		{"/offload 8 CPUs", pymodel.Config{CPUs: 8}, 10, pymodel.Handler{Async: true, Steps: []pymodel.Step{sleepStep(pymodel.ToThread)}}, 1},
		{"/offload 2 CPUs", pymodel.Config{CPUs: 2}, 10, pymodel.Handler{Async: true, Steps: []pymodel.Step{sleepStep(pymodel.ToThread)}}, 2},
		{"/sync-sleep x100", pymodel.Config{}, 100, pymodel.Handler{Steps: []pymodel.Step{sleepStep(pymodel.Block)}}, 3},
		{"flask 1w x 5t", pymodel.Config{Mode: pymodel.WSGI, Threads: 5}, 10, pymodel.Handler{Steps: []pymodel.Step{sleepStep(pymodel.Block)}}, 2},
		{"flask 1w x 10t", pymodel.Config{Mode: pymodel.WSGI, Threads: 10}, 10, pymodel.Handler{Steps: []pymodel.Step{sleepStep(pymodel.Block)}}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := trace.NewRecorder(0)
			cfg := c.cfg
			cfg.Trace = rec
			rt := startRuntime(t, cfg)
			d := burst(t, rt, c.n, c.h)
			evs := rec.Snapshot().Events
			if got := len(trace.Waves(evs, trace.IO)); got != int(c.waves) {
				t.Errorf("%d waves of sleeps (%v); want %v", got, trace.Waves(evs, trace.IO), c.waves)
			}
			if got := len(trace.Filter(evs, trace.IO)); got != c.n {
				t.Errorf("%d sleeps traced; want %d", got, c.n)
			}
			if min := time.Duration(c.waves * float64(wait)); d < min {
				t.Errorf("burst took %v; %v waves take at least %v", d, c.waves, min)
			}
		})
	}
}

func TestAsyncBlockWarnsAndMeasuresLoop(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, pymodel.Config{})
	burst(t, rt, 3, pymodel.Handler{Async: true, Steps: []pymodel.Step{sleepStep(pymodel.Block)}})
	st := rt.Stats()
	if st.CPU != 0 {
		t.Errorf("CPU %v for sleeps; want 0", st.CPU)
	}
	if st.Loop.SlowCallbacks != 3 || len(st.Loop.Warnings) != 3 {
		t.Errorf("slow callbacks = %d, warnings %q; want 3", st.Loop.SlowCallbacks, st.Loop.Warnings)
	}
	if st.Loop.MaxCallback < wait || st.Loop.Busy < 3*wait {
		t.Errorf("loop max %v busy %v; want ≥ %v and ≥ %v", st.Loop.MaxCallback, st.Loop.Busy, wait, 3*wait)
	}
	// The third request queued behind two blocked callbacks.
	if st.QueueMax < 2*wait*9/10 {
		t.Errorf("max queue wait %v; want about %v", st.QueueMax, 2*wait)
	}
}

// CPU-bound work under the GIL, read from the trace: exact facts that hold
// whatever else the machine runs. Under the GIL the n threads take turns —
// one holder at a time, every request waits for it, the CPU runs never
// overlap — so the batch takes at least the work. Free-threaded, the n
// burns run at once and no GIL is taken. A step that releases the GIL
// (BurnNoGIL) runs n at once while the GIL still has one holder at a time.
// Not parallel: its burns would load the package's other tests.
func TestGILSerialisesCPU(t *testing.T) {
	const n = 4
	const burn = 100 * time.Millisecond
	// run bursts n requests of step at a WSGI runtime of n threads and
	// returns its trace and the burst's time.
	run := func(t *testing.T, cfg pymodel.Config, step pymodel.Step) (*pymodel.Runtime, []trace.Event, time.Duration) {
		t.Helper()
		rec := trace.NewRecorder(0)
		cfg.Mode, cfg.Threads, cfg.Trace = pymodel.WSGI, n, rec
		rt := startRuntime(t, cfg)
		d := burst(t, rt, n, pymodel.Handler{Steps: []pymodel.Step{step}})
		return rt, rec.Snapshot().Events, d
	}
	// ranFully checks that each of the n requests traced its step's runs
	// of phase p, and that they add up to the burn: a run's wall time is at
	// least the thread CPU time it burnt (5 % for what the hand-offs
	// between runs cost, and do not trace).
	ranFully := func(t *testing.T, evs []trace.Event, p trace.Phase) {
		t.Helper()
		got := trace.PerRequest(evs, p)
		if len(got) != n {
			t.Errorf("%s runs of %d requests traced; want %d", p, len(got), n)
		}
		for req, d := range got {
			if d < burn*95/100 {
				t.Errorf("request %d: %s runs add up to %v; want ≥ %v (the burn)", req, p, d, burn)
			}
		}
	}

	t.Run("GIL", func(t *testing.T) {
		rt, evs, d := run(t, pymodel.Config{}, pymodel.Burn(burn))
		if got := trace.MaxOverlap(evs, trace.GIL); got != 1 {
			t.Errorf("threads holding the GIL at once = %d; want 1", got)
		}
		if got := trace.MaxOverlap(evs, trace.CPU); got != 1 {
			t.Errorf("CPU runs at once = %d; want 1 (each holds the GIL)", got)
		}
		ranFully(t, evs, trace.CPU)
		if got := len(trace.PerRequest(evs, trace.GIL)); got != n {
			t.Errorf("requests that held the GIL = %d; want %d", got, n)
		}
		if got := len(trace.PerRequest(evs, trace.GILWait)); got != n {
			t.Errorf("requests that waited for the GIL = %d; want %d (the holder hands it over every switch interval)", got, n)
		}
		if gs := rt.GIL().Stats(); gs.Handoffs == 0 {
			t.Errorf("GIL stats %+v: want forced hand-offs", gs)
		}
		// The runs never overlap and add up to the work, so the burst
		// cannot take less: a lower bound any load keeps.
		if work := time.Duration(n) * burn * 95 / 100; d < work {
			t.Errorf("burst took %v; %d serialised burns of %v take at least %v", d, n, burn, work)
		}
	})

	t.Run("free-threaded", func(t *testing.T) {
		_, evs, _ := run(t, pymodel.Config{FreeThreaded: true}, pymodel.Burn(burn))
		tracecheck.NoGIL(t, evs)
		tracecheck.AllAtOnce(t, evs, trace.CPU, n)
		ranFully(t, evs, trace.CPU)
	})

	t.Run("GIL-releasing step", func(t *testing.T) {
		_, evs, _ := run(t, pymodel.Config{}, pymodel.BurnNoGIL(burn))
		if got := trace.MaxOverlap(evs, trace.GIL); got != 1 {
			t.Errorf("threads holding the GIL at once = %d; want 1", got)
		}
		if got := len(trace.PerRequest(evs, trace.GIL)); got != n {
			t.Errorf("requests that held the GIL = %d; want %d (before and after the step)", got, n)
		}
		if got := len(trace.Filter(evs, trace.CPU)); got != 0 {
			t.Errorf("%d CPU runs holding the GIL; want none", got)
		}
		tracecheck.AllAtOnce(t, evs, trace.CPUNoGIL, n)
		ranFully(t, evs, trace.CPUNoGIL)
	})
}

func TestCPUOnLoopIsMeasured(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, pymodel.Config{})
	burst(t, rt, 2, pymodel.Handler{Async: true, Steps: []pymodel.Step{pymodel.Burn(50 * time.Millisecond)}})
	if cpu := rt.Stats().CPU; cpu < 95*time.Millisecond || cpu > 150*time.Millisecond {
		t.Errorf("CPU %v for two 50 ms burns on the loop; want ≈ 100 ms", cpu)
	}
}

func TestSwitchIntervalBoundsWait(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, pymodel.Config{Mode: pymodel.WSGI, Threads: 3})
	burst(t, rt, 3, pymodel.Handler{Steps: []pymodel.Step{pymodel.CPU(20_000_000)}})
	gs := rt.GIL().Stats()
	// Any wait is at most ~two holders' intervals, plus scheduling slack.
	if gs.MaxWait > 100*time.Millisecond {
		t.Errorf("max GIL wait %v with a 5 ms switch interval", gs.MaxWait)
	}
}

func TestConfigRejectsNegative(t *testing.T) {
	t.Parallel()
	for _, c := range []pymodel.Config{{CPUs: -1}, {Threads: -2}, {Executor: -1}, {ProcessWorkers: -1}, {SwitchInterval: -time.Millisecond}, {Mode: "cgi"}} {
		if _, err := pymodel.New(c); err == nil {
			t.Errorf("New(%+v) = nil error; want one", c)
		}
	}
}

func TestWSGIRejectsAsync(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, pymodel.Config{Mode: pymodel.WSGI})
	if _, err := rt.Handle(context.Background(), pymodel.Handler{Async: true, Steps: []pymodel.Step{pymodel.Sleep(time.Millisecond)}}); err == nil {
		t.Error("async handler on WSGI: want error")
	}
}

func TestCloseAbortsRunning(t *testing.T) {
	t.Parallel()
	rt, err := pymodel.New(pymodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := rt.Start(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := rt.Handle(context.Background(), pymodel.Handler{Async: true, Steps: []pymodel.Step{pymodel.Sleep(time.Hour)}})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("request survived cancel")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancel did not end the request")
	}
	rt.Close()
	rt.Close()
	if _, err := rt.Handle(context.Background(), pymodel.Handler{Steps: []pymodel.Step{pymodel.Sleep(time.Millisecond)}}); err == nil {
		t.Error("Handle after Close succeeded")
	}
}

// An ASGI server receives a request's body on its loop: one callback for
// the headers and two a 256 KiB chunk, the handler starting in the last —
// exactly BodyCallbacks more than a request without a body, for an async
// handler and for a def one alike. A WSGI server's loop is not involved.
func TestBodyReceivedOnLoop(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{true, false} {
		rt := startRuntime(t, pymodel.Config{})
		callbacks := func(body int) int64 {
			before := rt.Stats().Loop.Callbacks
			if _, err := rt.Handle(context.Background(), pymodel.Handler{Async: async, Body: body}); err != nil {
				t.Fatal(err)
			}
			return rt.Stats().Loop.Callbacks - before
		}
		none := callbacks(0)
		body := 3*pymodel.ReceiveChunk + 1 // four chunks
		if got, want := callbacks(body)-none, int64(pymodel.BodyCallbacks(body)); got != want || want != 8 {
			t.Errorf("async %v: a %d-byte body took %d more loop callbacks than none; want %d (8)", async, body, got, want)
		}
	}
	if n := pymodel.BodyCallbacks(pymodel.ReceiveChunk); n != 2 {
		t.Errorf("BodyCallbacks(one chunk) = %d; want 2", n)
	}
}

// A spooled upload (Handler.Spooled) is received as SpooledBody says: up
// to SpoolMax exactly as a plain body; past it with hops on the thread
// limiter — each a limiter wait in the trace — and a callback after each.
func TestSpooledBodyHops(t *testing.T) {
	t.Parallel()
	rec := trace.NewRecorder(0)
	rt := startRuntime(t, pymodel.Config{Trace: rec})
	const large = 1463910 // source 000's 8K image as a multipart body
	tests := []struct {
		name            string
		body            int
		callbacks, hops int
	}{
		{"no body", 0, 0, 0},
		{"in memory", pymodel.SpoolMax, pymodel.BodyCallbacks(pymodel.SpoolMax), 0},
		// Counted by hand: the headers, four chunks in memory (a read and a
		// receive each), the fifth chunk's read and receive, its one byte
		// written by the rollover's hop, the task's resumption at the
		// stream's end, the seek's hop.
		{"one byte past", pymodel.SpoolMax + 1, 1 + 8 + 2 + 1, 2},
		// The image, six chunks: the headers, four in memory (8), the
		// fifth's read and receive and the rollover's hop, the sixth's
		// receive and its write hop, the resumption and the seek's hop —
		// as the real app's three writes and a seek before the handler.
		{"rolled over", large, 1 + 8 + 2 + 1 + 1, 3},
	}
	none := int64(-1)
	for _, tc := range tests {
		before := rt.Stats().Loop.Callbacks
		tm, err := rt.Handle(context.Background(), pymodel.Handler{Async: true, Body: tc.body, Spooled: true})
		if err != nil {
			t.Fatal(err)
		}
		got := rt.Stats().Loop.Callbacks - before
		if none < 0 {
			none = got
		}
		hops := 0
		for _, ev := range rec.Snapshot().Events {
			if ev.Request == tm.Request && ev.Phase == trace.LimiterWait {
				hops++
			}
		}
		if got-none != int64(tc.callbacks) || hops != tc.hops {
			t.Errorf("%s: %d more callbacks than no body and %d hops; want %d and %d", tc.name, got-none, hops, tc.callbacks, tc.hops)
		}
		if c, h := pymodel.SpooledBody(tc.body); tc.body > 0 && (c != tc.callbacks || h != tc.hops) {
			t.Errorf("%s: SpooledBody = %d callbacks, %d hops; want %d and %d", tc.name, c, h, tc.callbacks, tc.hops)
		}
	}
}

// A spooled upload cancelled while the loop is blocked takes no more turns
// once its next callback runs.
func TestSpooledBodyCancelled(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, pymodel.Config{})
	blocking := func(d time.Duration) pymodel.Handler {
		return pymodel.Handler{Async: true, Steps: []pymodel.Step{{Kind: pymodel.KindSleep, Duration: d, Call: pymodel.Block}}}
	}
	before := rt.Stats().Loop.Callbacks
	if _, err := rt.Handle(context.Background(), blocking(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	blocker := rt.Stats().Loop.Callbacks - before // the blocker's own
	before = rt.Stats().Loop.Callbacks
	block := make(chan error, 1)
	go func() {
		_, err := rt.Handle(context.Background(), blocking(300*time.Millisecond))
		block <- err
	}()
	time.Sleep(50 * time.Millisecond) // the loop is blocked now
	ctx, cancel := context.WithCancel(context.Background())
	upload := make(chan error, 1)
	go func() {
		_, err := rt.Handle(ctx, pymodel.Handler{Async: true, Body: 1463910, Spooled: true})
		upload <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-upload; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled upload: %v; want context.Canceled", err)
	}
	if err := <-block; err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the upload's queued callback runs
	if got := rt.Stats().Loop.Callbacks - before - blocker; got > 2 {
		whole, _ := pymodel.SpooledBody(1463910)
		t.Errorf("the cancelled upload took %d loop callbacks; want at most 2 (its queued one; %d uncancelled)", got, whole)
	}
}

// A large body waits turns of a busy loop: a request without a body that
// arrives later, while the loop is blocked, starts its handler first.
func TestBodyWaitsLoopTurns(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, pymodel.Config{})
	burn := pymodel.Handler{Async: true, Steps: []pymodel.Step{pymodel.Burn(20 * time.Millisecond)}}
	upload := burn
	upload.Body = 2 * pymodel.ReceiveChunk
	ctx := context.Background()
	block := make(chan error, 1)
	go func() {
		blocker := pymodel.Handler{Async: true, Steps: []pymodel.Step{{Kind: pymodel.KindSleep, Duration: time.Second, Call: pymodel.Block}}}
		_, err := rt.Handle(ctx, blocker)
		block <- err
	}()
	time.Sleep(100 * time.Millisecond) // the loop is blocked now, for a second
	type res struct {
		tm  pymodel.Timing
		err error
	}
	first, second := make(chan res, 1), make(chan res, 1)
	go func() { tm, err := rt.Handle(ctx, upload); first <- res{tm, err} }()
	time.Sleep(200 * time.Millisecond)
	go func() { tm, err := rt.Handle(ctx, burn); second <- res{tm, err} }()
	a, b := <-first, <-second
	if err := errors.Join(a.err, b.err, <-block); err != nil {
		t.Fatal(err)
	}
	if !b.tm.Done.Before(a.tm.Done) {
		t.Errorf("the upload (arrived first, 2 chunks) was done at %v, the bodiless request at %v; want the bodiless one first", a.tm.Done, b.tm.Done)
	}
}
