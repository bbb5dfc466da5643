package pymodel

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Step kinds understood by the runtime. Workload primitives (image, database,
// print, downstream) are added by the strategy package as custom steps.
const (
	KindSleep  = "sleep"  // an I/O wait of Duration: time.sleep / asyncio.sleep
	KindCPU    = "cpu"    // sum of squares of 0..N-1, computed for real
	KindBurn   = "burn"   // burn Duration of CPU time on the calling thread
	KindCustom = "custom" // call Func
	// KindSeq is one Python function whose body is Steps, in order: an
	// executor or a process pool is sent it whole, as run_in_executor is
	// sent source 000's convert_image (decode, convert, rotate x4, encode),
	// so its steps run on one thread, one after another.
	KindSeq = "seq"
)

// Call is how a handler invokes a step.
type Call string

// The ways a step can be called. The zero value means "the strategy's
// default" and resolves to Block when nothing else is set.
const (
	// Block calls the step plainly: in an async handler it runs on the event
	// loop and blocks it (time.sleep inside async def).
	Block Call = "block"
	// Await awaits the step: an I/O step yields the loop until it is done
	// (await asyncio.sleep). A CPU step cannot be awaited and runs as Block,
	// just as an async def with no await inside does.
	Await Call = "await"
	// ToThread is asyncio.to_thread or loop.run_in_executor(None, ...): the
	// step runs on asyncio's default executor, min(32, CPUs+4) threads.
	ToThread Call = "to_thread"
	// Threadpool is Starlette's run_in_threadpool: AnyIO's worker threads
	// behind the 40-token limiter shared with def handlers.
	Threadpool Call = "threadpool"
	// ThreadExecutor is run_in_executor on a ThreadPoolExecutor() of the
	// server's own, default size min(32, CPUs+4).
	ThreadExecutor Call = "thread_executor"
	// ProcessExecutor is run_in_executor on a ProcessPoolExecutor(): the step
	// and its payload are serialised through a pipe to a worker process.
	ProcessExecutor Call = "process_executor"
)

// ParseCall converts a call name; "" is accepted and means the default.
func ParseCall(s string) (Call, error) {
	switch c := Call(s); c {
	case "", Block, Await, ToThread, Threadpool, ThreadExecutor, ProcessExecutor:
		return c, nil
	}
	return "", fmt.Errorf("pymodel: unknown call %q (want block, await, to_thread, threadpool, thread_executor or process_executor)", s)
}

// Step is one piece of work inside a handler. It is a plain value: a cell can
// print it and change its fields.
type Step struct {
	// Kind is KindSleep, KindCPU, KindBurn or KindCustom.
	Kind string `json:"kind"`
	// Name labels the step in errors and warnings; optional.
	Name string `json:"name,omitempty"`
	// Arg is a registered kind's argument, e.g. the image to process.
	Arg string `json:"arg,omitempty"`
	// Duration is the sleep of a sleep step or the CPU time of a burn step.
	Duration time.Duration `json:"duration,omitempty"`
	// N is the bound of a cpu step: sum of i*i for i in [0, N).
	N int `json:"n,omitempty"`
	// IO marks a custom step as an I/O wait: it releases the GIL and can
	// be awaited. Sleep steps are always I/O; cpu and burn never.
	IO bool `json:"io,omitempty"`
	// ReleasesGIL makes a CPU step run without holding the GIL, as C
	// extension code that releases it does (Pillow's image operations).
	ReleasesGIL bool `json:"releases_gil,omitempty"`
	// GILReleased is the share (0..1) of a burn or cpu step's work done
	// with the GIL released; the rest holds it. 0, the zero value, holds it
	// throughout; 1 is ReleasesGIL. In between, the step runs as a C
	// extension call does (Pillow's decode, convert, transpose, encode;
	// hashlib): first the held part (the Python-level wrapper, argument
	// checks, allocating the result, with the GIL), then the released part
	// (the pixel or hash loop between ImagingSectionEnter/Leave or
	// Py_BEGIN/END_ALLOW_THREADS), after which the thread takes the GIL
	// back to return to Python code. See HeldShare.
	GILReleased float64 `json:"gil_released,omitempty"`
	// Crowd, if set, makes the step's CPU work cost more (or less) the
	// more steps of its kind run at once in its process (see Crowd). On a
	// burn, cpu or seq step.
	Crowd *Crowd `json:"crowd,omitempty"`
	// Call overrides how the handler calls this step; "" uses the
	// strategy's default for CPU or I/O steps.
	Call Call `json:"call,omitempty"`
	// Payload is the number of bytes of arguments (and of result) this
	// step pickles when sent to a process pool. Zero sends only the step.
	Payload int `json:"payload,omitempty"`
	// Steps are the body of a seq step (KindSeq), run in order on the
	// thread the seq runs on; they take no Call of their own.
	Steps []Step `json:"steps,omitempty"`
	// Func is the work of a custom step. It must honour ctx. Custom steps
	// run in this process only: they cannot go to a process pool or a
	// prefork worker. A custom step that is not IO holds the GIL for its
	// whole run (no forced hand-off), like C code that keeps the GIL.
	Func func(ctx context.Context) error `json:"-"`
}

// Sleep is an I/O wait of d.
func Sleep(d time.Duration) Step { return Step{Kind: KindSleep, Duration: d} }

// CPU computes the sum of squares of 0..n-1 (source 003 uses 10,000,000).
func CPU(n int) Step { return Step{Kind: KindCPU, N: n} }

// Burn burns d of CPU time on the calling thread, holding the GIL. Use it to
// calibrate a step against a measured CPython cost.
func Burn(d time.Duration) Step { return Step{Kind: KindBurn, Duration: d} }

// BurnNoGIL burns d of CPU time without holding the GIL (C extension code).
func BurnNoGIL(d time.Duration) Step {
	return Step{Kind: KindBurn, Duration: d, ReleasesGIL: true}
}

// BurnHeld burns d of CPU time holding the GIL for the share held (0..1)
// of it and releasing it for the rest, as a C extension call that drops
// the GIL around its heavy loop does: BurnHeld(d, 1) is Burn(d),
// BurnHeld(d, 0) is BurnNoGIL(d). A share outside 0..1 makes a step that
// Validate rejects.
func BurnHeld(d time.Duration, held float64) Step {
	switch held {
	case 0:
		return BurnNoGIL(d)
	case 1:
		return Burn(d)
	}
	return Step{Kind: KindBurn, Duration: d, GILReleased: 1 - held}
}

// Custom wraps a Go function as a step; io says whether it is an I/O wait
// (releases the GIL, can be awaited) or CPU work.
func Custom(name string, io bool, fn func(ctx context.Context) error) Step {
	return Step{Kind: KindCustom, Name: name, IO: io, Func: fn}
}

// Seq is a step that runs steps in order as one call (KindSeq): one Python
// function calling several C extension functions, named name.
func Seq(name string, steps ...Step) Step {
	return Step{Kind: KindSeq, Name: name, Steps: steps}
}

// IsIO reports whether the step is an I/O wait. A seq step is not: it is a
// plain function call, which cannot be awaited; its I/O steps wait
// without the GIL as they run.
func (s Step) IsIO() bool {
	if k, ok := registered(s.Kind); ok {
		return k.io
	}
	return s.Kind == KindSleep || (s.Kind == KindCustom && s.IO)
}

// HeldShare is the share (0..1) of the step's work done holding the GIL:
// 0 for I/O waits and ReleasesGIL steps, 1 - GILReleased for other CPU
// work.
func (s Step) HeldShare() float64 {
	if s.IsIO() || s.ReleasesGIL {
		return 0
	}
	return 1 - s.GILReleased
}

// partlyHeld reports whether the step holds the GIL for part of its work
// only (0 < GILReleased < 1 on a step that is not otherwise GIL-free).
func (s Step) partlyHeld() bool {
	return !s.IsIO() && !s.ReleasesGIL && s.GILReleased > 0 && s.GILReleased < 1
}

// Label is a short description such as "sleep=1s" or "cpu=10000000".
func (s Step) Label() string {
	var b strings.Builder
	switch s.Kind {
	case KindSleep, KindBurn:
		fmt.Fprintf(&b, "%s=%v", s.Kind, s.Duration)
	case KindCPU:
		fmt.Fprintf(&b, "cpu=%d", s.N)
	case KindSeq:
		parts := make([]string, len(s.Steps))
		for i, sub := range s.Steps {
			parts[i] = sub.Label()
		}
		fmt.Fprintf(&b, "%s[%s]", cmp.Or(s.Name, KindSeq), strings.Join(parts, " "))
	default:
		if s.Name != "" {
			b.WriteString(s.Name)
		} else {
			b.WriteString(s.Kind)
		}
		if s.Arg != "" {
			b.WriteString("=" + s.Arg)
		}
	}
	if s.ReleasesGIL {
		b.WriteString(":nogil")
	} else if s.GILReleased != 0 {
		b.WriteString(":held=" + strconv.FormatFloat(1-s.GILReleased, 'g', 3, 64))
	}
	if s.Crowd != nil {
		b.WriteString(":" + s.Crowd.label())
	}
	if s.Call != "" {
		b.WriteString(":" + string(s.Call))
	}
	return b.String()
}

// String is Label.
func (s Step) String() string { return s.Label() }

// Validate reports a step that cannot run, naming what is wrong.
func (s Step) Validate() error {
	switch s.Kind {
	case KindSleep, KindBurn:
		if s.Duration <= 0 {
			return fmt.Errorf("pymodel: %s step: duration must be positive, got %v", s.Kind, s.Duration)
		}
	case KindCPU:
		if s.N <= 0 {
			return fmt.Errorf("pymodel: cpu step: n must be positive, got %d", s.N)
		}
	case KindCustom:
		if s.Func == nil {
			return fmt.Errorf("pymodel: custom step %q has no Func", s.Name)
		}
	case KindSeq:
		if len(s.Steps) == 0 {
			return fmt.Errorf("pymodel: seq step %q has no steps", s.Name)
		}
		for i, sub := range s.Steps {
			if sub.Call != "" && sub.Call != Block {
				return fmt.Errorf("pymodel: seq step %q: step %d (%s) has call %q; the steps of a seq run where the seq does", s.Name, i+1, sub.Label(), sub.Call)
			}
			if err := sub.Validate(); err != nil {
				return fmt.Errorf("pymodel: seq step %q: step %d: %w", s.Name, i+1, err)
			}
		}
	case "":
		return errors.New("pymodel: step has no kind")
	default:
		if _, ok := registered(s.Kind); !ok {
			return fmt.Errorf("pymodel: unknown step kind %q (want one of %s)", s.Kind, strings.Join(Kinds(), ", "))
		}
	}
	if s.Crowd != nil {
		switch s.Kind {
		case KindBurn, KindCPU, KindSeq:
		default:
			return fmt.Errorf("pymodel: step %s: Crowd is for burn, cpu and seq steps", s.Label())
		}
		if err := s.Crowd.validate(s.crowdKey()); err != nil {
			return fmt.Errorf("pymodel: step %s: %w", s.Label(), err)
		}
		for i, sub := range s.Steps {
			if sub.Crowd != nil {
				return fmt.Errorf("pymodel: seq step %q: step %d (%s) has a Crowd inside a crowd seq; give the seq or its steps one, not both", s.Name, i+1, sub.Label())
			}
		}
	}
	if s.Payload < 0 {
		return fmt.Errorf("pymodel: step %s: payload must not be negative, got %d", s.Label(), s.Payload)
	}
	if r := s.GILReleased; r != 0 {
		switch {
		case math.IsNaN(r) || r < 0 || r > 1:
			return fmt.Errorf("pymodel: step %s: GILReleased must be between 0 and 1 (a share of the step's work; held share = 1 - GILReleased), got %v", s.Label(), r)
		case s.IsIO():
			return fmt.Errorf("pymodel: step %s: GILReleased is for CPU steps; an I/O step never holds the GIL", s.Label())
		case s.ReleasesGIL && r != 1:
			return fmt.Errorf("pymodel: step %s: ReleasesGIL and GILReleased %v contradict (ReleasesGIL is GILReleased 1)", s.Label(), r)
		case r < 1 && s.Kind != KindBurn && s.Kind != KindCPU:
			return fmt.Errorf("pymodel: step %s: GILReleased between 0 and 1 needs a burn or cpu step (its work is split in two), not %s", s.Label(), s.Kind)
		}
	}
	if _, err := ParseCall(string(s.Call)); err != nil {
		return err
	}
	return nil
}

// Portable reports whether the step can be serialised to another process.
func (s Step) Portable() bool {
	for _, sub := range s.Steps {
		if !sub.Portable() {
			return false
		}
	}
	return s.Kind != KindCustom
}

// Workload is what a handler does: its steps, in order.
type Workload struct {
	Name  string `json:"name,omitempty"`
	Steps []Step `json:"steps"`
}

// Validate checks every step.
func (w Workload) Validate() error {
	for i, s := range w.Steps {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return nil
}

// Label is the workload's Name, or its steps' labels joined by commas
// ("none" for no steps).
func (w Workload) Label() string {
	if w.Name != "" {
		return w.Name
	}
	if len(w.Steps) == 0 {
		return "none"
	}
	parts := make([]string, len(w.Steps))
	for i, s := range w.Steps {
		parts[i] = s.Label()
	}
	return strings.Join(parts, ",")
}

// String is Label.
func (w Workload) String() string { return w.Label() }

// ParseWorkload parses a workload spec: "none" (a handler that only
// answers), or steps separated by commas, each
// KIND=VALUE with optional :OPTION suffixes. Kinds: sleep=DURATION,
// cpu=N, burn=DURATION. Options: nogil (the step releases the GIL),
// held=SHARE (a burn or cpu step holds the GIL for SHARE, 0..1, of its
// work and releases it for the rest: GILReleased = 1 - SHARE) and a call
// name (block, await, to_thread, threadpool, thread_executor,
// process_executor). Example: "sleep=1s:await,cpu=10000000".
func ParseWorkload(spec string) (Workload, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Workload{}, errors.New("pymodel: empty workload spec")
	}
	if spec == "none" {
		return Workload{Name: "none"}, nil
	}
	var w Workload
	for _, item := range strings.Split(spec, ",") {
		s, err := ParseStep(item)
		if err != nil {
			return Workload{}, err
		}
		w.Steps = append(w.Steps, s)
	}
	return w, w.Validate()
}

// ParseStep parses one KIND=VALUE[:OPTION...] item of a workload spec.
func ParseStep(item string) (Step, error) {
	item = strings.TrimSpace(item)
	parts := strings.Split(item, ":")
	kind, val, ok := strings.Cut(parts[0], "=")
	if !ok {
		return Step{}, fmt.Errorf("pymodel: workload step %q: want KIND=VALUE", item)
	}
	var s Step
	switch kind {
	case KindSleep, KindBurn:
		d, err := time.ParseDuration(val)
		if err != nil {
			return Step{}, fmt.Errorf("pymodel: workload step %q: %w", item, err)
		}
		s = Step{Kind: kind, Duration: d}
	case KindCPU:
		n, err := strconv.Atoi(strings.ReplaceAll(val, "_", ""))
		if err != nil {
			return Step{}, fmt.Errorf("pymodel: workload step %q: bad n: %w", item, err)
		}
		s = Step{Kind: KindCPU, N: n}
	default:
		k, ok := registered(kind)
		if !ok || k.parse == nil {
			return Step{}, fmt.Errorf("pymodel: unknown workload step kind %q in %q (want one of %s)", kind, item, strings.Join(specKinds(), ", "))
		}
		var err error
		if s, err = k.parse(val); err != nil {
			return Step{}, fmt.Errorf("pymodel: workload step %q: %w", item, err)
		}
	}
	for _, opt := range parts[1:] {
		if opt == "nogil" {
			s.ReleasesGIL = true
			continue
		}
		if v, ok := strings.CutPrefix(opt, "held="); ok {
			h, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(h) || h < 0 || h > 1 {
				return Step{}, fmt.Errorf("pymodel: workload step %q: held=%s: want a share between 0 and 1", item, v)
			}
			switch h {
			case 0:
				s.ReleasesGIL = true
			case 1:
			default:
				s.GILReleased = 1 - h
			}
			continue
		}
		c, err := ParseCall(opt)
		if err != nil {
			return Step{}, fmt.Errorf("workload step %q: %w", item, err)
		}
		s.Call = c
	}
	return s, s.Validate()
}

// specKinds are the kinds a workload spec can name.
func specKinds() []string {
	out := []string{KindSleep, KindCPU, KindBurn}
	for _, k := range Kinds() {
		if r, ok := registered(k); ok && r.parse != nil {
			out = append(out, k)
		}
	}
	return out
}

// MarshalWorkload serialises a workload for another process; custom steps
// cannot be serialised.
func MarshalWorkload(w Workload) ([]byte, error) {
	for _, s := range w.Steps {
		if !s.Portable() {
			return nil, fmt.Errorf("pymodel: step %s is a Go function of this process and cannot run in a worker process", s.Label())
		}
	}
	return json.Marshal(w)
}

var sink atomic.Uint64 // keeps CPU work from being optimised away

const chunk = 1 << 14 // iterations between GIL checks (~10 µs)

// sumSquares computes sum(i*i for i in range(n)) in chunks, calling check
// between chunks; check returns an error to abort.
func sumSquares(n int, check func() error) (uint64, error) {
	var s uint64
	for i := 0; i < n; {
		end := i + chunk
		if end > n {
			end = n
		}
		for ; i < end; i++ {
			u := uint64(i)
			s += u * u
		}
		if err := check(); err != nil {
			return s, err
		}
	}
	sink.Add(s)
	return s, nil
}

// burnCPU spins until the calling OS thread has consumed d of CPU time,
// calling check between chunks (burnFor).
func burnCPU(d time.Duration, check func() error) error {
	_, err := burnFor(d, check)
	return err
}

// burnFor is burnCPU, reporting the thread CPU time it used. The goroutine
// is locked to its thread.
//
// A chunk is chunk/4 steps of the spin (a few µs). The first is 256, to
// learn the rate; each later one is cut to what remains at it, so a burn
// overshoots d by about one reading of the thread's clock rather than half
// a chunk (a framework cost of 0.2 ms charged in halves paid 5 % more).
func burnFor(d time.Duration, check func() error) (time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	var s uint64
	x := uint64(1)
	n, steps := 256, 0
	for {
		for i := 0; i < n; i++ {
			x = x*6364136223846793005 + 1442695040888963407
			s += x >> 33
		}
		steps += n
		used := threadCPU() - start
		if used >= d {
			sink.Add(s)
			return used, nil
		}
		if err := check(); err != nil {
			sink.Add(s)
			return used, err
		}
		// The steps that fit in what remains at the rate so far: a whole
		// chunk at most, 64 at least (about as long as a clock reading).
		n = chunk / 4
		if used > 0 {
			fit := float64(d-used) / float64(used) * float64(steps)
			n = int(min(max(fit, 64), chunk/4))
		}
	}
}
