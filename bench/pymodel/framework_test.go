package pymodel_test

import (
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// TestFrameworkCostIsCharged: each request pays its framework cost in two
// halves where CPython pays it — on the loop for ASGI (async and def
// handlers, the def hand-off added), on the request's gthread thread for
// WSGI — as CPU holding the GIL, traced as framework inside the loop's
// blocked callbacks (ASGI) or its thread's GIL turns (WSGI), and counted in
// the runtime's CPU.
func TestFrameworkCostIsCharged(t *testing.T) {
	fw := pymodel.FrameworkCost{Loop: 2 * time.Millisecond, Threadpool: time.Millisecond, Thread: 3 * time.Millisecond}
	cases := []struct {
		name   string
		mode   string
		async  bool
		half   time.Duration // each of the two charges
		lane   string        // where they run
		within trace.Phase   // the interval every charge lies inside
	}{
		{"asgi async def", pymodel.ASGI, true, fw.Loop / 2, pymodel.LoopThread, trace.LoopBlocked},
		{"asgi def", pymodel.ASGI, false, (fw.Loop + fw.Threadpool) / 2, pymodel.LoopThread, trace.LoopBlocked},
		{"wsgi", pymodel.WSGI, false, fw.Thread / 2, "gthread", trace.GIL},
	}
	const n = 6
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := trace.NewRecorder(0)
			rt := startRuntime(t, pymodel.Config{Mode: c.mode, Threads: 2, Framework: fw, Trace: rec})
			h := pymodel.Handler{Async: c.async, Steps: []pymodel.Step{pymodel.Sleep(time.Millisecond)}}
			burst(t, rt, n, h)
			evs := rec.Snapshot().Events
			// A forced GIL switch splits a charge in two; per request the
			// pieces add up to at least the two halves' CPU.
			per := map[int64]time.Duration{}
			for _, e := range evs {
				if e.Phase != trace.Framework {
					continue
				}
				per[e.Request] += time.Duration(e.End - e.Start)
				if !strings.HasPrefix(e.Thread, c.lane) {
					t.Errorf("framework charge on lane %q; want %q", e.Thread, c.lane)
				}
			}
			if len(per) != n {
				t.Errorf("framework charges for %d requests; want %d", len(per), n)
			}
			for req, d := range per {
				if d < 2*c.half {
					t.Errorf("request %d: framework charges took %v of wall time; want at least their %v of CPU", req, d, 2*c.half)
				}
			}
			if in, all := trace.Within(evs, trace.Framework, c.within); in != all {
				t.Errorf("%d of %d framework charges inside %s; want all", in, all, c.within)
			}
			if cpu := rt.Stats().CPU; cpu < time.Duration(2*n)*c.half {
				t.Errorf("runtime CPU %v; want at least the %v charged", cpu, time.Duration(2*n)*c.half)
			}
		})
	}
}

// TestFrameworkCostZeroChargesNothing: the zero value adds no step.
func TestFrameworkCostZeroChargesNothing(t *testing.T) {
	rec := trace.NewRecorder(0)
	rt := startRuntime(t, pymodel.Config{Trace: rec})
	burst(t, rt, 3, pymodel.Handler{Async: true, Steps: []pymodel.Step{pymodel.Sleep(time.Millisecond)}})
	for _, e := range rec.Snapshot().Events {
		if e.Phase == trace.Framework {
			t.Fatalf("a framework charge with a zero FrameworkCost: %+v", e)
		}
	}
}

func TestFrameworkCostRejectsNegative(t *testing.T) {
	_, err := pymodel.New(pymodel.Config{Framework: pymodel.FrameworkCost{Threadpool: -time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "FrameworkCost.Threadpool") {
		t.Fatalf("err = %v; want one naming FrameworkCost.Threadpool", err)
	}
}

// TestThreadStartOnlyForNewThreads: a pool starts a thread only when no
// started one is free, and reuses the most recently freed: requests one
// after another run on one thread, started once; four at once start four.
func TestThreadStartOnlyForNewThreads(t *testing.T) {
	cases := []struct {
		name      string
		burst     int // requests at once, per round
		rounds    int
		wantStart int
		wantLanes int
	}{
		{"one at a time", 1, 5, 1, 1},
		{"four at once", 4, 1, 4, 4},
		{"four at once, twice", 4, 2, 4, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := trace.NewRecorder(0)
			// No forced GIL switch (which would split a start's event in
			// two) however slowly a loaded machine runs the starts.
			rt := startRuntime(t, pymodel.Config{Mode: pymodel.WSGI, Threads: 8, Trace: rec, SwitchInterval: time.Minute,
				Framework: pymodel.FrameworkCost{ThreadStart: 500 * time.Microsecond}})
			// Long enough that a burst's requests overlap on a loaded machine.
			h := pymodel.Handler{Steps: []pymodel.Step{pymodel.Sleep(200 * time.Millisecond)}}
			for range c.rounds {
				burst(t, rt, c.burst, h)
			}
			starts, lanes := 0, map[string]bool{}
			for _, e := range rec.Snapshot().Events {
				switch e.Phase {
				case trace.Framework:
					starts++
				case trace.Handler:
					lanes[e.Thread] = true
				}
			}
			if starts != c.wantStart || len(lanes) != c.wantLanes {
				t.Errorf("%d thread starts, handlers on %d threads (%v); want %d and %d", starts, len(lanes), lanes, c.wantStart, c.wantLanes)
			}
		})
	}
}
