package s004

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/bench/workload"
)

// pair is one client against one app on the model, as one strategy for
// bench.Run: Start opens a fresh database, starts the app's model (its
// handler waits Delay plus up to Jitter, then inserts the posted email)
// and the client's model beside it, whose every request posts the next
// user to the app. The server bench.Run loads is the client's; its Stats
// and Trace are the app's (the overlap the rows' order speaks of), and
// Close records the rows in the order they landed before it closes the
// database.
type pair struct {
	client, app string
	k           Knobs
	cpus        int
	fw          pymodel.FrameworkCost
	landed      *landed
}

var _ strategy.Strategy = pair{}

func (p pair) Label() string   { return Label(p.client, p.app) }
func (p pair) Validate() error { return p.k.Validate() }
func (p pair) String() string  { return p.Label() + ": the client's model posting to the app's model" }

// Start starts the database, the app and the client; the workload is the
// pair's own (each request posts a user), so w is ignored.
func (p pair) Start(ctx context.Context, _ pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	dsn, err := p.k.DSN()
	if err != nil {
		return nil, err
	}
	s := &pairServer{landed: p.landed, label: p.Label()}
	if s.db, err = workload.OpenDB(ctx, dsn); err != nil {
		return nil, err
	}
	as, err := AppModel(p.app, p.cpus)
	if err != nil {
		s.Close()
		return nil, err
	}
	as.Python.Framework = p.fw
	steps := []pymodel.Step{insertWait(p.k.Delay, p.k.Jitter), pymodel.DBInsertField(s.db, "email")}
	if s.app, err = as.Start(ctx, pymodel.Workload{Name: p.app, Steps: steps}, strategy.StartOptions{TraceEvents: o.TraceEvents}); err != nil {
		s.Close()
		return nil, err
	}
	cs, err := ClientModel(p.client, p.app, p.cpus)
	if err != nil {
		s.Close()
		return nil, err
	}
	post, closePost := postStep(s.app.URL()+"/users", Emails(p.k.N))
	s.closePost = closePost
	if s.cli, err = cs.Start(ctx, pymodel.Workload{Name: "POST /users", Steps: []pymodel.Step{post}}, strategy.StartOptions{Addr: o.Addr}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// insertWait is the slow database's wait inside an insert: d plus a random
// wait of up to jitter, an I/O wait (blocking in a def handler, awaited in
// an async def one).
func insertWait(d, jitter time.Duration) pymodel.Step {
	if jitter <= 0 {
		return pymodel.Sleep(d)
	}
	return pymodel.Custom("db wait", true, func(ctx context.Context) error { return sleep(ctx, waitOf(d, jitter)) })
}

// pairServer is a started pair.
type pairServer struct {
	label     string
	landed    *landed
	db        *workload.DB
	app, cli  strategy.Server
	closePost func()
	once      sync.Once
	err       error
}

func (s *pairServer) URL() string                    { return s.cli.URL() }
func (s *pairServer) Stats() strategy.Stats          { return s.app.Stats() }
func (s *pairServer) Trace() (trace.Snapshot, error) { return s.app.Trace() }

// Close records the rows that landed, then stops the client, the app and
// the database.
func (s *pairServer) Close() error {
	s.once.Do(func() {
		var errs []error
		if s.cli != nil {
			errs = append(errs, s.cli.Close())
		}
		if s.closePost != nil {
			s.closePost()
		}
		if s.app != nil {
			errs = append(errs, s.app.Close())
		}
		if s.db != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			rows, err := s.db.Rows(ctx)
			cancel()
			if err == nil {
				s.landed.set(s.label, rows.Texts("value"))
			}
			errs = append(errs, err, s.db.Close())
		}
		if err := errors.Join(errs...); err != nil {
			s.err = fmt.Errorf("s004: %s: %w", s.label, err)
		}
	})
	return s.err
}

// landed holds each pair's rows, in the order they landed, by label.
type landed struct {
	mu sync.Mutex
	by map[string][]string
}

func (l *landed) set(label string, rows []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string][]string{}
	}
	l.by[label] = rows
}

func (l *landed) rows(label string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.by[label]
}
