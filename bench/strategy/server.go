package strategy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// HealthPath is answered by every server. On the Python model it goes
// through the event loop (uvicorn) or takes a worker thread (gunicorn), so a
// blocked loop or a full thread pool shows in its latency.
const HealthPath = "/health"

// Response headers carrying the server-side split of one request's time.
const (
	HeaderQueueMs   = "X-Queue-Ms"
	HeaderServiceMs = "X-Service-Ms"
)

// server is the server underneath every family of this package: it runs
// spec's kind over the workload. newServer, then start; the caller must call
// Close (safe to call more than once), or cancel the context given to
// start. Every path except HealthPath runs the workload.
type server struct {
	addr        string // "" means 127.0.0.1:0
	traceEvents int    // > 0: trace up to that many events per process

	st    spec
	w     pymodel.Workload
	steps []pymodel.Step

	mu      sync.Mutex
	started bool
	closed  bool
	ln      net.Listener // set by a prefork child before start
	url     string
	srv     *http.Server
	served  chan struct{}
	stopCtx func() bool

	rt       *pymodel.Runtime     // in-process Python model
	pool     *pymodel.ProcessPool // GoProcessPool
	sem      chan struct{}        // Bounded, Serial
	children []*child             // prefork
	images   *imageOut            // the image step's output dir
	rec      *trace.Recorder      // nil: not tracing
	worker   int                  // this process's number among prefork workers

	// Go-native counters.
	requests  atomic.Int64
	errors    atomic.Int64
	cpuNs     atomic.Int64
	queueNs   atomic.Int64
	queueMax  atomic.Int64
	serviceNs atomic.Int64
}

// newServer validates the workload and returns a server that is not yet
// listening.
func newServer(s spec, w pymodel.Workload) (*server, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("strategy %q: workload: %w", s.Name, err)
	}
	if s.isPython() && s.Workers > 1 {
		if _, err := pymodel.MarshalWorkload(w); err != nil {
			return nil, fmt.Errorf("strategy %q has %d worker processes: %w", s.Name, s.Workers, err)
		}
	}
	return &server{st: s, w: w, steps: s.resolve(w.Steps), images: &imageOut{}}, nil
}

// URL is the server's base URL, such as http://127.0.0.1:38121, once started.
func (s *server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// start listens and starts serving. It returns once the server (and every
// worker process) is ready. Cancelling ctx closes the server.
func (s *server) start(ctx context.Context) (err error) {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return errors.New("strategy: server already started or closed")
	}
	s.started = true
	if s.traceEvents > 0 {
		s.rec = trace.NewRecorder(s.traceEvents)
	}
	s.mu.Unlock()
	defer func() {
		if err != nil {
			s.Close()
			err = fmt.Errorf("strategy %q: %w", s.st.Name, err)
		}
	}()
	ln := s.ln
	if ln == nil {
		addr := s.addr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		if s.st.isPython() && s.st.Workers > 1 && s.st.Accept == AcceptReusePort {
			// Each worker listens on its own socket; the port is held
			// meanwhile by a bound socket that takes no connections.
			if ln, err = reserve(addr); err != nil {
				return err
			}
		} else if ln, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.mu.Unlock()

	var h http.Handler
	switch {
	case s.st.isPython() && s.st.Workers > 1:
		if err := s.startPrefork(ctx, ln); err != nil {
			return err
		}
		s.stopCtx = context.AfterFunc(ctx, func() { s.Close() })
		return nil
	case s.st.isPython():
		rt, err := pymodel.New(s.pyConfig())
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.rt = rt
		s.mu.Unlock()
		if err := rt.Start(context.Background()); err != nil {
			return err
		}
		h = http.HandlerFunc(s.servePython)
	default:
		switch s.st.Kind {
		case kindBounded, kindSerial:
			s.sem = make(chan struct{}, max(s.st.Limit, 1))
		case kindGoProcessPool:
			n := s.st.ProcessWorkers
			if n == 0 {
				n = runtime.NumCPU()
			}
			p, err := pymodel.NewProcessPool(ctx, pymodel.PoolConfig{Workers: n})
			if err != nil {
				return err
			}
			s.mu.Lock()
			s.pool = p
			s.mu.Unlock()
		}
		h = http.HandlerFunc(s.serveGo)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.srv = srv
	s.served = make(chan struct{})
	s.mu.Unlock()
	go func() {
		defer close(s.served)
		srv.Serve(ln)
	}()
	s.stopCtx = context.AfterFunc(ctx, func() { s.Close() })
	return nil
}

func (s *server) pyConfig() pymodel.Config {
	mode := pymodel.ASGI
	if s.st.Kind == kindGunicorn {
		mode = pymodel.WSGI
	}
	startPool := false
	for _, st := range s.steps {
		if st.Call == pymodel.ProcessExecutor {
			startPool = true
		}
	}
	return pymodel.Config{
		Mode: mode, CPUs: s.st.CPUs, SwitchInterval: s.st.SwitchInterval, FreeThreaded: s.st.FreeThreaded,
		Threads: s.st.Threads, Executor: s.st.Executor, ThreadExecutor: s.st.ThreadExecutor,
		ProcessWorkers: s.st.ProcessWorkers, StartProcessPool: startPool, SlowCallback: s.st.SlowCallback,
		Framework: s.st.Framework,
		Trace:     s.rec, Worker: s.worker,
	}
}

// Close stops accepting, ends in-flight requests, stops the runtime, pools
// and worker processes, and waits for all of them. Safe to call twice.
func (s *server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	srv, ln, served, rt, pool, children := s.srv, s.ln, s.served, s.rt, s.pool, s.children
	s.mu.Unlock()
	if s.stopCtx != nil {
		s.stopCtx()
	}
	var errs []error
	if rt != nil {
		rt.Close() // ends in-flight handlers first, so Shutdown is quick
	}
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
		cancel()
		<-served
	} else if ln != nil {
		ln.Close()
	}
	if pool != nil {
		errs = append(errs, pool.Close())
	}
	errs = append(errs, stopChildren(children))
	errs = append(errs, s.images.remove())
	return errors.Join(errs...)
}

// maxBody bounds a request body read into memory.
const maxBody = 256 << 20

func readAll(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("request body larger than %d bytes", maxBody)
	}
	return b, nil
}

func writeResult(w http.ResponseWriter, tm pymodel.Timing, err error) {
	h := w.Header()
	h[HeaderQueueMs] = []string{strconv.FormatFloat(ms(tm.Queue), 'f', 3, 64)}
	h[HeaderServiceMs] = []string{strconv.FormatFloat(ms(tm.Service), 'f', 3, 64)}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	io.WriteString(w, "ok\n")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (s *server) servePython(w http.ResponseWriter, r *http.Request) {
	ctx, err := s.requestContext(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h := pymodel.Handler{Async: s.st.Async, Steps: s.steps, Name: r.URL.Path, Body: int(max(r.ContentLength, 0)), Spooled: isMultipart(r)}
	if r.URL.Path == HealthPath {
		h = pymodel.Handler{Async: s.st.Kind == kindUvicorn, Name: HealthPath}
	}
	tm, err := s.rt.Handle(ctx, h)
	writeResult(w, tm, err)
	if s.rec != nil && tm.Request != 0 {
		s.rec.Span(tm.Request, s.worker, respondLane, trace.Respond, tm.Done)
	}
}

// respondLane holds the responses being written.
const respondLane = "responses"

// goLane is where a Go-native server's handlers run: a goroutine each.
func (s *server) goLane() string {
	if s.st.Kind == kindSerial {
		return "serial"
	}
	return "goroutines"
}

func (s *server) serveGo(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == HealthPath {
		io.WriteString(w, "ok\n")
		return
	}
	ctx, err := s.requestContext(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	arrive := time.Now()
	s.requests.Add(1)
	tm, err := s.runGo(ctx, s.rec.NextRequest(), arrive)
	if err != nil {
		s.errors.Add(1)
	} else {
		s.queueNs.Add(int64(tm.Queue))
		s.serviceNs.Add(int64(tm.Service))
		maxInt64(&s.queueMax, int64(tm.Queue))
	}
	writeResult(w, tm, err)
	if s.rec != nil && tm.Request != 0 {
		s.rec.Span(tm.Request, s.worker, respondLane, trace.Respond, tm.Done)
	}
}

// runGo runs the steps on the request's goroutine (after the semaphore,
// for Bounded and Serial). req numbers the request in the trace.
func (s *server) runGo(ctx context.Context, req int64, arrive time.Time) (pymodel.Timing, error) {
	lane := s.goLane()
	if s.sem != nil {
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			return pymodel.Timing{Queue: time.Since(arrive)}, ctx.Err()
		}
		defer func() { <-s.sem }()
		if s.rec != nil {
			s.rec.Span(req, s.worker, "semaphore wait", trace.LimiterWait, arrive)
		}
	}
	start := time.Now()
	done := func(err error) (pymodel.Timing, error) {
		end := time.Now()
		if s.rec != nil {
			s.rec.Add(trace.Event{Request: req, Worker: s.worker, Thread: lane, Phase: trace.Handler, Start: start.UnixNano(), End: end.UnixNano()})
		}
		return pymodel.Timing{Request: req, Done: end, Queue: start.Sub(arrive), Service: end.Sub(start)}, err
	}
	for _, st := range s.steps {
		t0 := time.Now()
		if s.pool != nil && st.Portable() {
			if _, err := s.pool.RunTraced(ctx, st, s.rec, s.worker, req); err != nil {
				return done(err)
			}
			continue
		}
		cpu, err := pymodel.RunStep(ctx, st)
		s.cpuNs.Add(int64(cpu))
		if s.rec != nil {
			p := pymodel.StepPhase(st)
			if p == trace.CPUNoGIL {
				p = trace.CPU // no GIL to release in Go
			}
			s.rec.Span(req, s.worker, lane, p, t0)
		}
		if err != nil {
			return done(err)
		}
	}
	return done(nil)
}

func maxInt64(a *atomic.Int64, v int64) {
	for {
		m := a.Load()
		if v <= m || a.CompareAndSwap(m, v) {
			return
		}
	}
}

// Trace returns what the server has traced so far: every process's events
// (a prefork server asks each worker for its own), requests renumbered 1,
// 2, ... in order of arrival, and the count of events dropped beyond the
// cap. Read it before Close: worker processes are asked while they live. A
// server that does not trace returns an empty snapshot.
func (s *server) Trace() (trace.Snapshot, error) {
	s.mu.Lock()
	rec, children := s.rec, s.children
	s.mu.Unlock()
	var parts []trace.Snapshot
	if len(children) == 0 {
		parts = append(parts, rec.Snapshot())
	}
	var errs []error
	for _, c := range children {
		t, err := c.trace()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		parts = append(parts, t)
	}
	out := trace.Merge(parts...)
	trace.Renumber(out.Events)
	return out, errors.Join(errs...)
}
