package pymodel

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/trace"
)

// pythread is one Python thread: it either holds its process's GIL or not.
// A pythread is used by one goroutine at a time.
type pythread struct {
	gil   *GIL
	holds bool
	cpuNs *atomic.Int64 // where measured step CPU time is added; may be nil

	crowds *crowds  // the process's running crowd steps (Step.Crowd); nil: each counts alone
	onLoop bool     // the event loop's thread
	after  []func() // run by the loop once the current callback is accounted

	// Tracing (rec nil: off): the lane's name, its worker process, the
	// request it is working for, and when it took the GIL.
	rec       *trace.Recorder
	worker    int
	name      string
	req       int64
	heldSince time.Time
}

// afterCallback runs fn once the current loop callback has ended and been
// measured (a response is sent after the handler returns); off the loop it
// runs fn now.
func (t *pythread) afterCallback(fn func()) {
	if t.onLoop {
		t.after = append(t.after, fn)
		return
	}
	fn()
}

func (t *pythread) acquire() {
	if t.holds {
		return
	}
	if t.rec == nil || t.gil.FreeThreaded() {
		t.gil.Acquire()
		t.holds = true
		return
	}
	start, since, waited := t.gil.acquire()
	if waited {
		t.rec.Add(trace.Event{Request: t.req, Worker: t.worker, Thread: t.name, Phase: trace.GILWait, Start: start.UnixNano(), End: since.UnixNano()})
	}
	t.heldSince = since
	t.holds = true
}

func (t *pythread) release() {
	if !t.holds {
		return
	}
	end := t.gil.release() // the next holder's since: held intervals touch, never overlap
	if t.rec != nil && !t.gil.FreeThreaded() {
		t.rec.Add(trace.Event{Request: t.req, Worker: t.worker, Thread: t.name, Phase: trace.GIL, Start: t.heldSince.UnixNano(), End: end.UnixNano()})
	}
	t.holds = false
}

// run executes s on this thread, blocking: I/O waits and GIL-releasing work
// run without the GIL (taken back afterwards, as CPython does on return to
// Python code); other CPU work holds it with forced hand-offs. A partly
// held step (GILReleased between 0 and 1) runs its held part, then its
// released part, then takes the GIL back: see splitHeld.
func (t *pythread) run(ctx context.Context, s Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.Crowd != nil {
		return t.runCrowded(ctx, s)
	}
	if s.Kind == KindSeq {
		for _, sub := range s.Steps {
			if err := t.run(ctx, sub); err != nil {
				return err
			}
		}
		return nil
	}
	if s.partlyHeld() {
		for _, part := range splitHeld(s) {
			if err := t.run(ctx, part); err != nil {
				return err
			}
		}
		return nil
	}
	holding := t.holds
	if s.IsIO() || s.ReleasesGIL {
		t.release()
		if holding {
			defer t.acquire()
		}
	} else {
		t.acquire()
	}
	var seg time.Time // start of the step's current traced segment
	if t.rec != nil {
		seg = time.Now()
	}
	if s.IsIO() {
		err := runIO(ctx, s)
		if t.rec != nil {
			t.record(StepPhase(s), seg)
		}
		return err
	}
	check := func() error { return ctx.Err() }
	if !s.ReleasesGIL && !t.gil.FreeThreaded() {
		check = func() error {
			t.gil.Yield()
			return ctx.Err()
		}
		if t.rec != nil {
			// The same forced switch, with the CPU run split where the GIL
			// changed hands.
			check = func() error {
				if t.gil.due() {
					t.record(StepPhase(s), seg)
					t.gil.handoffs.Add(1)
					t.release()
					t.acquire()
					seg = time.Now()
				}
				return ctx.Err()
			}
		}
	}
	runtime.LockOSThread()
	start := threadCPU()
	err := runCPU(ctx, s, check)
	if t.cpuNs != nil {
		t.cpuNs.Add(int64(threadCPU() - start))
	}
	runtime.UnlockOSThread()
	if t.rec != nil {
		t.record(StepPhase(s), seg)
	}
	return err
}

// runCrowded runs a crowd step (Step.Crowd) counted among its process's
// running steps of the same key, its CPU work scaled by the crowd's factor
// for the count as each of its steps starts.
func (t *pythread) runCrowded(ctx context.Context, s Step) error {
	c, key := s.Crowd, s.crowdKey()
	s.Crowd = nil
	factor := func() float64 { return c.Factor(1) }
	if t.crowds != nil {
		defer t.crowds.enter(key)()
		factor = func() float64 { return c.Factor(t.crowds.count(key)) }
	}
	if s.Kind != KindSeq {
		return t.run(ctx, scaled(s, factor()))
	}
	for _, sub := range s.Steps {
		if err := t.run(ctx, scaled(sub, factor())); err != nil {
			return err
		}
	}
	return nil
}

// splitHeld cuts a partly held burn or cpu step in two, in the order a C
// extension call runs them: the held part (the Python wrapper and the
// result's allocation, with the GIL) and the released part (the heavy loop
// between Py_BEGIN_ALLOW_THREADS and Py_END_ALLOW_THREADS). The released
// part ends holding the GIL again when the held part took it, so the
// caller returns to Python code holding it, as CPython's does. One held
// part, not many interleaved slices: Pillow's convert and transpose release
// the GIL once per call, and its chunked decode and encode (64 KB a call)
// hold it between chunks for microseconds; a calibration that times the
// real step in two threads measures the whole of its serialised share
// however it is spread, and this split keeps that share exact.
// A part with no work is left out.
func splitHeld(s Step) []Step {
	held, free := s, s
	held.GILReleased, free.GILReleased = 0, 0
	free.ReleasesGIL = true
	switch s.Kind {
	case KindBurn:
		held.Duration = time.Duration(math.Round(float64(s.Duration) * (1 - s.GILReleased)))
		free.Duration = s.Duration - held.Duration
	case KindCPU:
		held.N = int(math.Round(float64(s.N) * (1 - s.GILReleased)))
		free.N = s.N - held.N
	}
	var parts []Step
	for _, p := range []Step{held, free} {
		if p.Duration > 0 || p.N > 0 {
			parts = append(parts, p)
		}
	}
	return parts
}

// runIO performs an I/O step without touching the GIL.
func runIO(ctx context.Context, s Step) error {
	switch s.Kind {
	case KindSleep:
		return sleepCtx(ctx, s.Duration)
	case KindCustom:
		return callCustom(ctx, s)
	}
	_, err := runRegistered(ctx, s, nil)
	return err
}

// runCPU performs a CPU step, calling check between chunks.
func runCPU(ctx context.Context, s Step, check func() error) error {
	switch s.Kind {
	case KindCPU:
		_, err := sumSquares(s.N, check)
		return err
	case KindBurn:
		return burnCPU(s.Duration, check)
	case KindCustom:
		return callCustom(ctx, s)
	}
	_, err := runRegistered(ctx, s, nil)
	return err
}

func callCustom(ctx context.Context, s Step) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pymodel: custom step %s panicked: %v", s.Label(), r)
		}
	}()
	if s.Func == nil {
		return fmt.Errorf("pymodel: custom step %s has no Func", s.Label())
	}
	if err := s.Func(ctx); err != nil {
		return fmt.Errorf("step %s: %w", s.Label(), err)
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RunStep runs s on the calling goroutine with no GIL and no event loop, as
// a Go-native handler does, and returns the CPU time a CPU step used. It
// counts no crowd: a crowd step (Step.Crowd) costs its factor for one at
// once, however many RunSteps run.
func RunStep(ctx context.Context, s Step) (time.Duration, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	var cpu atomic.Int64
	t := &pythread{cpuNs: &cpu}
	err := t.run(ctx, s)
	return time.Duration(cpu.Load()), err
}
