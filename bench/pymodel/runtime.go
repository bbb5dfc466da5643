package pymodel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/trace"
)

// Python's pool sizes.
const (
	// DefaultLimiter is AnyIO's default thread limiter: 40 tokens, used by
	// Starlette for def handlers and run_in_threadpool.
	DefaultLimiter = 40
)

// DefaultExecutorSize is the size of asyncio's default executor and of a
// ThreadPoolExecutor() with no max_workers: min(32, cpus+4).
func DefaultExecutorSize(cpus int) int {
	if cpus+4 < 32 {
		return cpus + 4
	}
	return 32
}

// Server modes.
const (
	// ASGI is uvicorn running Starlette/FastAPI: an event loop receives
	// every request; async handlers run on it, def handlers on the
	// limiter's threads.
	ASGI = "asgi"
	// WSGI is a gunicorn gthread worker running Flask: no event loop; each
	// request takes one of Threads threads, or waits for one.
	WSGI = "wsgi"
)

// Config describes one modelled Python process. The zero value is a
// uvicorn process on this machine's CPU count with Python's defaults.
type Config struct {
	// Mode is ASGI (default) or WSGI.
	Mode string
	// CPUs is the modelled CPU count (os.cpu_count()); it sizes the default
	// executor and the process pool. 0 means runtime.NumCPU().
	CPUs int
	// SwitchInterval is sys.setswitchinterval; 0 means 5 ms.
	SwitchInterval time.Duration
	// FreeThreaded disables the GIL (PEP 703).
	FreeThreaded bool
	// Threads is the ASGI thread limiter (0 means 40) or the WSGI thread
	// count (0 means 1, gunicorn's default).
	Threads int
	// Executor is the size of asyncio's default executor used by to_thread;
	// 0 means min(32, CPUs+4).
	Executor int
	// ThreadExecutor is the size of the server's own ThreadPoolExecutor();
	// 0 means min(32, CPUs+4).
	ThreadExecutor int
	// ProcessWorkers is the size of the ProcessPoolExecutor(); 0 means CPUs.
	ProcessWorkers int
	// StartProcessPool starts the process pool in Start rather than on the
	// first process_executor step, so a worker that cannot start fails Start.
	StartProcessPool bool
	// SlowCallback is loop.slow_callback_duration; 0 means 100 ms, negative
	// disables warnings.
	SlowCallback time.Duration
	// Warnings, if not nil, receives each slow-callback warning line.
	Warnings io.Writer
	// WorkerCommand overrides the command that starts a process-pool worker
	// (default: this executable in worker mode). For tests of failure paths.
	WorkerCommand []string
	// Trace, if not nil, records every request's phases, the GIL's holders
	// and the loop's callbacks (see bench/trace). Nil: tracing off.
	Trace *trace.Recorder
	// Worker numbers this process among a prefork server's workers (its
	// trace events' worker); 0 for a single process.
	Worker int
	// Framework is the server stack's own CPU per request (zero: none).
	Framework FrameworkCost
}

// withDefaults fills zero fields and validates the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Mode == "" {
		c.Mode = ASGI
	}
	if c.Mode != ASGI && c.Mode != WSGI {
		return c, fmt.Errorf("pymodel: unknown mode %q (want %q or %q)", c.Mode, ASGI, WSGI)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"CPUs", c.CPUs}, {"Threads", c.Threads}, {"Executor", c.Executor}, {"ThreadExecutor", c.ThreadExecutor}, {"ProcessWorkers", c.ProcessWorkers}} {
		if f.v < 0 {
			return c, fmt.Errorf("pymodel: %s must not be negative, got %d", f.name, f.v)
		}
	}
	if c.SwitchInterval < 0 {
		return c, fmt.Errorf("pymodel: SwitchInterval must not be negative, got %v", c.SwitchInterval)
	}
	if err := c.Framework.Validate(); err != nil {
		return c, err
	}
	if c.CPUs == 0 {
		c.CPUs = runtime.NumCPU()
	}
	if c.SwitchInterval == 0 {
		c.SwitchInterval = DefaultSwitchInterval
	}
	if c.Threads == 0 {
		if c.Mode == ASGI {
			c.Threads = DefaultLimiter
		} else {
			c.Threads = 1
		}
	}
	if c.Executor == 0 {
		c.Executor = DefaultExecutorSize(c.CPUs)
	}
	if c.ThreadExecutor == 0 {
		c.ThreadExecutor = DefaultExecutorSize(c.CPUs)
	}
	if c.ProcessWorkers == 0 {
		c.ProcessWorkers = c.CPUs
	}
	if c.SlowCallback == 0 {
		c.SlowCallback = DefaultSlowCallback
	}
	return c, nil
}

// Handler is one endpoint: an async def or a def handler and its steps.
type Handler struct {
	// Async is true for an async def handler (runs on the event loop).
	Async bool
	// Steps run in order. A step's Call "" means Block.
	Steps []Step
	// Name labels the handler in loop warnings.
	Name string
	// Body is the request body's size in bytes. An ASGI server receives
	// it on its event loop before the handler can run, as uvicorn does: a
	// callback for the headers, then two for each 256 KiB the transport
	// reads (the read, which pauses the socket above uvicorn's high-water
	// mark, and the app's receive(), which resumes it), the handler
	// starting in the last — each callback queued behind whatever else is
	// ready then, so a large body waits many turns of a busy loop (see
	// BodyCallbacks). A WSGI worker's thread reads it as I/O, not modelled.
	Body int
	// Spooled says the body is a multipart form whose file part the
	// framework spools as Starlette does for FastAPI's UploadFile: in
	// memory up to SpoolMax, then in a temporary file, every write from
	// the one that rolls it over (Starlette's UploadFile.write checks
	// whether it will roll) and the seek back to its start a hop through
	// the thread limiter (run_in_threadpool) whose result the handler's
	// task waits for on the loop (see SpooledBody).
	Spooled bool
}

// ReceiveChunk is the most of a request body one read callback of an ASGI
// server's loop takes: asyncio's selector transport reads up to 256 KiB at
// a time.
const ReceiveChunk = 256 << 10

// BodyCallbacks is how many loop callbacks an ASGI server spends
// receiving a body of n bytes before the one its handler starts in: the
// headers' callback and two a chunk of ReceiveChunk, less the last, which
// the handler starts in. 0 for no body.
func BodyCallbacks(n int) int { return len(receivePlan(n, false)) }

// SpoolMax is Starlette's spool_max_size: an upload's file part stays in
// memory up to 1 MiB, then rolls over to a temporary file.
const SpoolMax = 1 << 20

// The spooled file's calls on a limiter thread, measured with CPython
// 3.11's SpooledTemporaryFile on this project's 2-core machine: the
// rollover copies the first MiB to the temporary file (0.3–0.9 ms), a
// later write 0.06–0.2 ms, a seek a few microseconds; the GIL is released
// around the write system calls.
var (
	spoolRollover = BurnHeld(400*time.Microsecond, 0.5)
	spoolWrite    = BurnHeld(60*time.Microsecond, 0.5)
	spoolSeek     = Burn(5 * time.Microsecond)
)

// SpooledBody is how an ASGI server receives a spooled multipart body of
// n bytes (Handler.Spooled) before the handler starts: callbacks on the
// loop, and hops, each a call on a limiter thread that the task waits for.
// Up to SpoolMax it is BodyCallbacks(n) callbacks and no hops. Past it,
// the chunk that rolls the file over and each chunk after is written by a
// hop, the task resuming in a callback after each (meanwhile the next
// chunk has been read), and a last hop seeks the file back to its start
// before the handler's callback. Measured in the real app (Starlette
// 1.10, python-multipart 0.0.34): python-multipart hands over each chunk
// the transport read as one piece, so source 000's 1.4 MB image took the
// same five hops in every upload, twenty at once or alone — three writes,
// the seek, and UploadFile's close after the response (not modelled: it
// is after the answer). Starlette 0.26 with python-multipart 0.0.5 cut
// each chunk into 1 to 8 pieces, 2 to 14 write hops an upload.
func SpooledBody(n int) (callbacks, hops int) {
	for _, s := range receivePlan(n, true) {
		if s.Kind == "" {
			callbacks++
		} else {
			hops++
		}
	}
	return callbacks, hops
}

// receivePlan lists what receiving a body of n bytes takes before the
// handler's callback: a zero Step for a loop callback, else a hop's call.
func receivePlan(n int, spooled bool) []Step {
	if n <= 0 {
		return nil
	}
	chunks := (n + ReceiveChunk - 1) / ReceiveChunk
	plan := []Step{{}} // the headers
	rolled := false
	for i := 1; i <= chunks; i++ {
		size := min(ReceiveChunk, n-(i-1)*ReceiveChunk)
		if !rolled {
			plan = append(plan, Step{}) // the read, which pauses the socket
		}
		plan = append(plan, Step{}) // receive(): parse, write
		if !spooled || (i-1)*ReceiveChunk+size <= SpoolMax {
			continue
		}
		if rolled {
			plan = append(plan, spoolWrite) // (the task resumed in this chunk's receive)
		} else {
			plan = append(plan, spoolRollover)
			rolled = true
		}
	}
	if !rolled {
		return plan[:len(plan)-1] // the handler starts in the last receive()
	}
	return append(plan, Step{}, spoolSeek) // the stream ends; seek(0)
}

// Timing splits one request's time at the server.
type Timing struct {
	// Request is the request's number in the runtime's trace (0 when not
	// tracing); Done is when the handler returned (when Handle did, if the
	// handler never ran): from there the response goes back.
	Request int64
	Done    time.Time
	// Queue is the time from arrival until the handler started: waiting
	// for the event loop (and its turns receiving the body, Handler.Body),
	// a thread-limiter token or a WSGI thread, and the
	// framework's first half on the loop and a new thread's start
	// (FrameworkCost) where they are charged.
	Queue time.Duration
	// Service is the time from the handler's start to its response.
	Service time.Duration
}

// ErrClosed is returned for requests made to a closed runtime.
var ErrClosed = errors.New("pymodel: runtime closed")

// Runtime is one modelled Python process: a GIL, an event loop (ASGI), the
// thread limiter, the default executor, a ThreadPoolExecutor and, on first
// use, a ProcessPoolExecutor. Create it with New, then Start; the caller must
// call Close. Handle is safe for concurrent use.
type Runtime struct {
	cfg Config
	gil *GIL

	ctx    context.Context
	cancel context.CancelFunc
	loop   *Loop

	rec        *trace.Recorder
	limiter    *pool
	executor   *pool
	threadExec *pool

	mu      sync.Mutex
	started bool
	closed  bool
	wg      sync.WaitGroup
	pool    *ProcessPool
	poolErr error

	crowds     crowds // crowd steps running in this process (Step.Crowd)
	cpuNs      atomic.Int64
	requests   atomic.Int64
	errors     atomic.Int64
	queueNs    atomic.Int64
	serviceNs  atomic.Int64
	queueMaxNs atomic.Int64
}

// New validates cfg and returns a runtime that is not yet started.
func New(cfg Config) (*Runtime, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Runtime{
		cfg:        c,
		gil:        NewGIL(c.SwitchInterval, c.FreeThreaded),
		rec:        c.Trace,
		limiter:    newPool(limiterName(c.Mode), c.Threads),
		executor:   newPool("to_thread", c.Executor),
		threadExec: newPool("pool-thread", c.ThreadExecutor),
	}, nil
}

// Config returns the configuration with defaults filled in.
func (r *Runtime) Config() Config { return r.cfg }

// GIL returns the process's GIL.
func (r *Runtime) GIL() *GIL { return r.gil }

// Start starts the event loop (ASGI) and, if configured, the process pool.
// Cancelling ctx later closes the runtime as Close does.
func (r *Runtime) Start(ctx context.Context) error {
	r.mu.Lock()
	if r.started || r.closed {
		r.mu.Unlock()
		return errors.New("pymodel: runtime already started or closed")
	}
	r.started = true
	r.ctx, r.cancel = context.WithCancel(context.Background())
	if r.cfg.Mode == ASGI {
		var warn func(string)
		if w := r.cfg.Warnings; w != nil {
			var wmu sync.Mutex
			warn = func(s string) { wmu.Lock(); fmt.Fprintln(w, s); wmu.Unlock() }
		}
		r.loop = newLoop(r.gil, &r.cpuNs, &r.crowds, r.cfg.SlowCallback, warn, r.rec, r.cfg.Worker)
	}
	r.mu.Unlock()
	if r.cfg.StartProcessPool {
		if _, err := r.processPool(ctx); err != nil {
			r.Close()
			return err
		}
	}
	stop := context.AfterFunc(ctx, func() { r.Close() })
	r.mu.Lock()
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		<-r.ctx.Done()
		stop()
	}()
	return nil
}

// Close cancels every running step, stops the loop, the pools and the worker
// processes, and waits for all of it. It is safe to call more than once.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	started := r.started
	pool := r.pool
	r.mu.Unlock()
	if !started {
		return nil
	}
	r.cancel()
	r.wg.Wait()
	if r.loop != nil {
		r.loop.close()
	}
	if pool != nil {
		return pool.Close()
	}
	return nil
}

// goTracked runs fn on a new goroutine that Close waits for; false if closed.
func (r *Runtime) goTracked(fn func()) bool {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return false
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		fn()
	}()
	return true
}

// processPool returns the process pool, starting it on first use.
func (r *Runtime) processPool(ctx context.Context) (*ProcessPool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.pool != nil || r.poolErr != nil {
		return r.pool, r.poolErr
	}
	p, err := NewProcessPool(ctx, PoolConfig{Workers: r.cfg.ProcessWorkers, Command: r.cfg.WorkerCommand})
	if err != nil {
		r.poolErr = err
		return nil, err
	}
	r.pool = p
	return p, nil
}

// ProcessPool returns the runtime's process pool if it has been started.
func (r *Runtime) ProcessPool() *ProcessPool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pool
}

// limiterName names a mode's request threads: AnyIO's worker threads
// (uvicorn) or gunicorn's gthread threads.
func limiterName(mode string) string {
	if mode == WSGI {
		return "gthread"
	}
	return "anyio"
}

// request is one in-flight call of Handle.
type request struct {
	ctx     context.Context
	h       Handler
	id      int64 // trace number; 0 when not tracing
	arrival int64 // 1 for the runtime's first request, 2 for the next, ...
	arrive  time.Time
	started atomic.Int64 // UnixNano when the handler started; 0 if not yet
	ended   atomic.Int64 // UnixNano when the handler returned; 0 if not yet
	once    sync.Once
	done    chan error

	lane string // where the handler runs (traces); written before started
}

func (q *request) start() { q.started.Store(time.Now().UnixNano()) }

// startOn marks the handler started on lane.
func (q *request) startOn(lane string) {
	q.lane = lane
	q.start()
}

// end marks the handler returned.
func (q *request) end() { q.ended.CompareAndSwap(0, time.Now().UnixNano()) }

func (q *request) finish(err error) {
	q.once.Do(func() { q.done <- err })
}

// Handle runs one request through the runtime and waits for its response.
// In ASGI mode every request passes through the event loop; async handlers
// run on it, def handlers on the thread limiter. In WSGI mode a def handler
// takes one of the worker's threads; async handlers are an error.
func (r *Runtime) Handle(ctx context.Context, h Handler) (Timing, error) {
	r.mu.Lock()
	ok := r.started && !r.closed
	r.mu.Unlock()
	if !ok {
		return Timing{}, ErrClosed
	}
	if h.Async && r.cfg.Mode == WSGI {
		return Timing{}, errors.New("pymodel: a WSGI server cannot run an async handler")
	}
	for i, s := range h.Steps {
		if err := s.Validate(); err != nil {
			return Timing{}, fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(r.ctx, cancel)
	defer stop()

	q := &request{ctx: rctx, h: h, id: r.rec.NextRequest(), arrive: time.Now(), done: make(chan error, 1)}
	q.arrival = r.requests.Add(1)
	var launched bool
	switch {
	case r.cfg.Mode == WSGI:
		launched = r.goTracked(func() {
			q.finish(r.runThreaded(q, r.limiter, trace.ThreadWait, q.arrive, r.cfg.Framework.Thread))
		})
	case h.Async:
		launched = r.afterBody(q, h.label(), func(t *pythread) {
			r.span(q.id, QueueLane, trace.Queue, q.arrive)
			if err := r.chargeFramework(q, t, r.cfg.Framework.Loop); err != nil {
				t.afterCallback(func() { q.finish(err) })
				return
			}
			q.startOn(TaskLane)
			r.runOnLoop(q, 0, t)
		})
	default:
		onLoop := r.cfg.Framework.Loop + r.cfg.Framework.Threadpool
		launched = r.afterBody(q, h.label(), func(t *pythread) {
			r.span(q.id, QueueLane, trace.Queue, q.arrive)
			if err := r.chargeFramework(q, t, onLoop); err != nil {
				t.afterCallback(func() { q.finish(err) })
				return
			}
			dispatched := time.Now()
			if !r.goTracked(func() {
				err := r.runThreaded(q, r.limiter, trace.LimiterWait, dispatched, 0)
				if !r.loop.callFor(q.id, h.label(), func(t *pythread) {
					if err == nil {
						err = r.chargeFramework(q, t, onLoop)
					}
					t.afterCallback(func() { q.finish(err) })
				}) {
					q.finish(ErrClosed)
				}
			}) {
				q.finish(ErrClosed)
			}
		})
	}
	if !launched {
		r.errors.Add(1)
		return Timing{}, ErrClosed
	}
	var err error
	select {
	case err = <-q.done:
	case <-rctx.Done():
		err = rctx.Err()
	}
	if errors.Is(err, context.Canceled) && r.ctx.Err() != nil && ctx.Err() == nil {
		err = ErrClosed // the runtime closed under the request, whichever path saw it first
	}
	end := time.Now()
	tm := Timing{Request: q.id, Done: end}
	if ns := q.started.Load(); ns == 0 {
		tm.Queue = end.Sub(q.arrive)
	} else {
		started := time.Unix(0, ns)
		tm.Queue = started.Sub(q.arrive)
		tm.Service = end.Sub(started)
		e := q.ended.Load()
		if e == 0 {
			e = end.UnixNano()
		}
		tm.Done = time.Unix(0, e)
		if r.rec != nil {
			r.rec.Add(trace.Event{Request: q.id, Worker: r.cfg.Worker, Thread: q.lane, Phase: trace.Handler, Start: ns, End: e})
		}
	}
	if err != nil {
		r.errors.Add(1)
	} else {
		r.queueNs.Add(tm.Queue.Nanoseconds())
		r.serviceNs.Add(tm.Service.Nanoseconds())
		for {
			m := r.queueMaxNs.Load()
			if tm.Queue.Nanoseconds() <= m || r.queueMaxNs.CompareAndSwap(m, tm.Queue.Nanoseconds()) {
				break
			}
		}
	}
	return tm, err
}

// afterBody schedules fn, the handler's first callback, on the loop once
// the request's body has been received there (receivePlan): each callback
// queued when the step before it ended, each hop run on the thread limiter
// from the callback before it. It reports false if the loop is closed
// before the first is queued; a later one that cannot be fails the request.
func (r *Runtime) afterBody(q *request, label string, fn func(t *pythread)) bool {
	return r.receive(q, receivePlan(q.h.Body, q.h.Spooled), label, fn)
}

func (r *Runtime) receive(q *request, plan []Step, label string, fn func(t *pythread)) bool {
	if len(plan) == 0 {
		return r.loop.callFor(q.id, label, fn)
	}
	s, rest := plan[0], plan[1:]
	if s.Kind != "" {
		s.Call = Threadpool
		return r.goTracked(func() {
			if err := r.offload(q.ctx, q.id, s); err != nil {
				q.finish(err)
				return
			}
			if !r.receive(q, rest, label, fn) {
				q.finish(ErrClosed)
			}
		})
	}
	return r.loop.callFor(q.id, "receive", func(t *pythread) {
		if err := q.ctx.Err(); err != nil { // cancelled or closed: no more turns
			t.afterCallback(func() { q.finish(err) })
			return
		}
		if !r.receive(q, rest, label, fn) {
			t.afterCallback(func() { q.finish(ErrClosed) })
		}
	})
}

func (h Handler) label() string {
	if h.Name != "" {
		return h.Name
	}
	kind := "def"
	if h.Async {
		kind = "async def"
	}
	w := Workload{Steps: h.Steps}
	return fmt.Sprintf("%s handler [%s]", kind, w.Label())
}

// newThread is a Python thread of this runtime, named name in traces,
// working for request req.
func (r *Runtime) newThread(name string, req int64) *pythread {
	return &pythread{gil: r.gil, cpuNs: &r.cpuNs, crowds: &r.crowds, rec: r.rec, worker: r.cfg.Worker, name: name, req: req}
}

// runThreaded runs a def handler on a thread from p: it waits for one
// (traced as phase wait, from since), takes the GIL and runs every step
// blocking, with half of the framework cost fw before the handler and half
// after it.
func (r *Runtime) runThreaded(q *request, p *pool, wait trace.Phase, since time.Time, fw time.Duration) error {
	slot, started, err := p.take(q.ctx)
	if r.rec != nil {
		r.span(q.id, p.name+" wait", wait, since)
	}
	if err != nil {
		return err
	}
	defer p.put(slot)
	name := p.thread(slot)
	t := r.newThread(name, q.id)
	if started {
		if err := r.startThread(q.ctx, t); err != nil {
			return err
		}
	}
	q.startOn(name)
	t.acquire()
	defer t.release()
	err = r.chargeFramework(q, t, fw)
	for _, s := range q.h.Steps {
		if err != nil {
			break
		}
		err = r.callBlocking(q.ctx, t, s)
	}
	q.end()
	if err != nil {
		return err
	}
	return r.chargeFramework(q, t, fw)
}

// callBlocking runs s from a thread that waits for it: plain and awaited
// calls run on the thread itself; offloaded calls wait, without the GIL, for
// the pool to run them.
func (r *Runtime) callBlocking(ctx context.Context, t *pythread, s Step) error {
	switch s.Call {
	case "", Block, Await:
		return t.run(ctx, s)
	}
	t.release()
	defer t.acquire()
	return r.offload(ctx, t.req, s)
}

// offload runs s, for request req, on the pool its Call names and waits
// for it.
func (r *Runtime) offload(ctx context.Context, req int64, s Step) error {
	var p *pool
	wait := trace.ExecutorWait
	switch s.Call {
	case ToThread:
		p = r.executor
	case Threadpool:
		p, wait = r.limiter, trace.LimiterWait
	case ThreadExecutor:
		p = r.threadExec
	case ProcessExecutor:
		pp, err := r.processPool(ctx)
		if err != nil {
			return err
		}
		_, err = pp.RunTraced(ctx, s, r.rec, r.cfg.Worker, req)
		return err
	default:
		return fmt.Errorf("pymodel: step %s: cannot offload with call %q", s.Label(), s.Call)
	}
	start := time.Now()
	slot, started, err := p.take(ctx)
	if r.rec != nil {
		r.span(req, p.name+" wait", wait, start)
	}
	if err != nil {
		return err
	}
	defer p.put(slot)
	t := r.newThread(p.thread(slot), req)
	if started {
		if err := r.startThread(ctx, t); err != nil {
			return err
		}
	}
	t.acquire()
	defer t.release()
	return t.run(ctx, s)
}

// runOnLoop runs an async handler's steps from index i inside a loop
// callback, until one yields (awaited I/O or an offload) or all are done.
func (r *Runtime) runOnLoop(q *request, i int, t *pythread) {
	for ; i < len(q.h.Steps); i++ {
		s := q.h.Steps[i]
		call := s.Call
		if call == "" || call == Block || (call == Await && !s.IsIO()) {
			if err := t.run(q.ctx, s); err != nil {
				q.end()
				t.afterCallback(func() { q.finish(err) })
				return
			}
			continue
		}
		next := i + 1
		var work func() error
		if call == Await {
			work = func() error {
				start := time.Now()
				err := runIO(q.ctx, s)
				r.span(q.id, TaskLane, StepPhase(s), start)
				return err
			}
		} else {
			work = func() error { return r.offload(q.ctx, q.id, s) }
		}
		if !r.goTracked(func() {
			err := work()
			if !r.loop.callFor(q.id, q.h.label(), func(t *pythread) {
				if err != nil {
					q.end()
					t.afterCallback(func() { q.finish(err) })
					return
				}
				r.runOnLoop(q, next, t)
			}) {
				q.finish(ErrClosed)
			}
		}) {
			q.finish(ErrClosed)
		}
		return
	}
	q.end()
	err := r.chargeFramework(q, t, r.cfg.Framework.Loop)
	t.afterCallback(func() { q.finish(err) })
}
