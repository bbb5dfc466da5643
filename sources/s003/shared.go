package s003

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// Servers are real apps started once and shared by several experiments
// (the I/O burst, the CPU burst and the split run the same Flask and
// FastAPI servers): starting a gunicorn costs seconds, a burst on it
// less. Each use of a server sees only its own run: its trace holds the
// requests sent since the use began (renumbered from 1), its cpu_s the
// CPU spent since then. A server's workers keep what earlier uses left
// (warm threads, imported modules), as a real server's would.
//
// Close ends every server; they also end when ctx (the cell's) is done.
type Servers struct {
	ctx    context.Context
	stop   context.CancelFunc
	mu     sync.Mutex
	byKey  map[string]strategy.Server
	closed bool
}

// current is the Servers made last: a notebook cell run again makes new
// ones, and the old ones' servers end then rather than linger.
var (
	currentMu sync.Mutex
	current   *Servers
)

// NewServers keeps servers for experiments run under ctx. It closes the
// Servers made before it, if still open: one set of shared servers at a
// time.
func NewServers(ctx context.Context) *Servers {
	currentMu.Lock()
	defer currentMu.Unlock()
	if current != nil {
		current.Close()
	}
	s := &Servers{byKey: map[string]strategy.Server{}}
	current = s
	s.ctx, s.stop = context.WithCancel(ctx)
	go func() {
		<-s.ctx.Done()
		s.Close()
	}()
	return s
}

// Experiment is e with its real strategies drawn from s: the first use
// of a server (by label and options) starts it, later ones reuse it.
// Model strategies are left as they are.
func (s *Servers) Experiment(e bench.Experiment) bench.Experiment {
	out := e
	out.Strategies = make([]strategy.Strategy, len(e.Strategies))
	for i, st := range e.Strategies {
		if r, ok := st.(cpython.Real); ok {
			out.Strategies[i] = sharedReal{Real: r, s: s}
		} else {
			out.Strategies[i] = st
		}
	}
	return out
}

// Close ends every server s started. Safe to call twice.
func (s *Servers) Close() error {
	s.mu.Lock()
	srvs := s.byKey
	s.byKey, s.closed = map[string]strategy.Server{}, true
	s.mu.Unlock()
	var errs []error
	for _, srv := range srvs {
		errs = append(errs, srv.Close())
	}
	s.stop()
	return errors.Join(errs...)
}

// sharedReal is a real app drawn from Servers.
type sharedReal struct {
	cpython.Real
	s *Servers
}

func (r sharedReal) Start(ctx context.Context, w pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	key := fmt.Sprintf("%s|%+v|%d|%s", r.Label(), r.Options, o.TraceEvents, o.Addr)
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.s.closed {
		return nil, errors.New("s003: Servers: closed")
	}
	srv, ok := r.s.byKey[key]
	if !ok {
		var err error
		if srv, err = r.Real.Start(r.s.ctx, w, o); err != nil {
			return nil, err
		}
		r.s.byKey[key] = srv
	}
	u := &sharedUse{Server: srv, base: srv.Stats(), reused: ok}
	if ok {
		tr, err := srv.Trace()
		if err != nil {
			return nil, err
		}
		for _, e := range tr.Events {
			u.after = max(u.after, e.End)
		}
	}
	return u, nil
}

// sharedUse is one use of a shared server.
type sharedUse struct {
	strategy.Server
	base   strategy.Stats
	reused bool
	after  int64 // the end of the earlier uses' last event: theirs had all answered
}

// Stats are the server's since this use began (cpu_s), as they stand
// (rss_mb, processes).
func (u *sharedUse) Stats() strategy.Stats {
	st := u.Server.Stats()
	st.CPUSeconds -= u.base.CPUSeconds
	return st
}

// Trace is this use's requests, renumbered from 1.
func (u *sharedUse) Trace() (trace.Snapshot, error) {
	tr, err := u.Server.Trace()
	if err != nil || !u.reused {
		return tr, err
	}
	var kept []trace.Event
	for _, e := range tr.Events {
		if e.Start > u.after {
			kept = append(kept, e)
		}
	}
	trace.Renumber(kept)
	tr.Events = kept
	return tr, nil
}

// Close keeps the server for the next use (Servers.Close ends it).
func (u *sharedUse) Close() error { return nil }
