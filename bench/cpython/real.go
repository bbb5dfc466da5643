package cpython

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// Real is a source's own app on the real CPython found on this machine, as
// a strategy: bench.Run starts it (uvicorn or gunicorn in its own process
// group, see Server), sends the load to Endpoint, reads its Stats and
// Trace, and closes it — the same steps, the same generator and the same
// bench/metrics columns as a model strategy, so one Experiment can put
// model "X" beside "real X".
//
// Real ignores the Experiment's workload: what a request does is the app's
// code. Its Stats measure cpu_s (user + system CPU of the app's processes
// since it answered /ready, start-up excluded) and rss_mb (the sum of their
// peak RSS) from /proc; the model-only columns (GIL, loop, queue) are NaN.
// It traces only with Options.Trace (a middleware writing a line per
// request phase: a cost the model's tracing does not have), capped at the
// Experiment's TraceEvents.
type Real struct {
	// Name is the row label; "" means "real " + App.Name + Endpoint.
	Name string
	// App is the source's app (App001(wait), App003Flask(...), ...).
	App App
	// Endpoint is the request path, with any query ("/sync-sleep",
	// "/cpu?n=1000000"); "" means the Experiment's.
	Endpoint string
	// Options choose the interpreter, the directory, the access log, the
	// trace middleware...
	Options Options
}

var _ strategy.Strategy = Real{}

// Label is Name, or "real " + App.Name + Endpoint.
func (r Real) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return "real " + r.App.Name + r.Endpoint
}

// RequestPath is Endpoint: bench.Run sends the load there.
func (r Real) RequestPath() string { return r.Endpoint }

// Validate reports an app that cannot be started or an endpoint that is
// not a path.
func (r Real) Validate() error {
	if err := r.App.Validate(); err != nil {
		return fmt.Errorf("cpython: strategy %q: %w", r.Label(), err)
	}
	if r.Endpoint != "" && !strings.HasPrefix(r.Endpoint, "/") {
		return fmt.Errorf("cpython: strategy %q: Endpoint must be a path such as /sync-sleep, got %q", r.Label(), r.Endpoint)
	}
	return nil
}

// Available returns nil when this machine's Python has every module the
// app imports, else a *MissingError (errors.Is ErrUnavailable) naming the
// distributions the pinned environment provides.
func (r Real) Available(ctx context.Context) error {
	env, err := Detect(ctx, r.Options.Python)
	if err != nil {
		return err
	}
	return env.Require(r.App.Requires...)
}

// Start starts the app (see Server.Start) and returns once it answers,
// every gunicorn worker included. The workload is ignored. o.Addr, when
// set, must be a loopback host:port.
func (r Real) Start(ctx context.Context, _ pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	app := r.App
	app.Name = r.Label()
	srv := NewServer(app, r.Options)
	srv.addr = o.Addr
	if err := srv.Start(ctx); err != nil {
		return nil, err
	}
	rs := &RealServer{srv: srv, traceCap: o.TraceEvents}
	rs.base, _ = groupUsage(srv.PGID())
	return rs, nil
}

// RealServer is a started Real strategy (what Real.Start returns): a
// strategy.Server over the app's Server.
type RealServer struct {
	srv      *Server
	traceCap int

	mu   sync.Mutex
	base map[int]float64 // CPU seconds per process when the app was ready
}

var _ strategy.Server = (*RealServer)(nil)

// URL is the app's base URL.
func (s *RealServer) URL() string { return s.srv.URL() }

// CPython is the app's Server: its directory, log, database table, images.
func (s *RealServer) CPython() *Server { return s.srv }

// Stats measures cpu_s and rss_mb of the app's process group (see Real);
// every other server column is NaN.
func (s *RealServer) Stats() strategy.Stats {
	cpu, rss := groupUsage(s.srv.PGID())
	s.mu.Lock()
	defer s.mu.Unlock()
	total := 0.0
	for pid, c := range cpu {
		total += c - s.base[pid]
	}
	st := strategy.Stats{CPUSeconds: total, PeakRSSMB: rss, Processes: len(cpu)}
	return st.MeasuredOnly("cpu_s", "rss_mb", "processes")
}

// Trace reads what the app's trace middleware recorded (Options.Trace),
// first letting the last lines be written (they go out with each
// response); an empty snapshot when the app is not traced. At most the
// StartOptions' TraceEvents events are kept, the rest counted in Dropped.
func (s *RealServer) Trace() (trace.Snapshot, error) {
	if !s.srv.opts.Trace || s.traceCap <= 0 {
		return trace.Snapshot{}, nil
	}
	var tr trace.Snapshot
	prev := -1
	for deadline := time.Now().Add(time.Second); ; {
		var err error
		if tr, err = s.srv.Trace(); err != nil {
			return trace.Snapshot{}, err
		}
		if len(tr.Events) == prev || time.Now().After(deadline) {
			break
		}
		prev = len(tr.Events)
		time.Sleep(50 * time.Millisecond)
	}
	if len(tr.Events) > s.traceCap {
		tr.Dropped = int64(len(tr.Events) - s.traceCap)
		tr.Events = tr.Events[:s.traceCap]
	}
	tr.Cap = s.traceCap
	return tr, nil
}

// Close ends the app's process group and removes its directory (see
// Server.Close). Safe to call twice.
func (s *RealServer) Close() error { return s.srv.Close() }
