// Package byo is the bring-your-own-server lesson's experiment: the lab's
// instruments pointed at a server the learner runs on this machine
// (strategy.External: loopback only, as everywhere in the lab), beside two
// demo servers the runs start and stop themselves — each request waits
// Wait; one serves requests concurrently, the other one at a time.
//
// A Lab records what the load generator saw of every request (sent, due,
// answered), since the lab cannot trace a server it did not start: Burst
// (one request alone per server, then N at once), Open (requests due at
// Rate per second, over InFlight connections: coordinated omission),
// Summary and ClientTrace read it.
package byo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// Knobs are the lesson's settings.
type Knobs struct {
	// URL is the learner's server's base URL ("" : only the demo
	// servers); it must be loopback (127.0.0.0/8, ::1, localhost).
	URL string
	// Path is the endpoint loaded on every server, "/work".
	Path string
	// N requests in the burst, 1..1000.
	N int
	// Wait is each demo server's wait per request, (0, 1m].
	Wait time.Duration
	// Rate is the open load's arrivals per second, (0, 1000].
	Rate float64
	// Duration is the open load's length, (0, 5m].
	Duration time.Duration
	// InFlight is how many connections the open load may use, 1..1000.
	InFlight int
}

// Default is the lesson's: a burst of 10, demo servers waiting 500 ms, an
// open load of 3 a second for 5 s over one connection, no server of yours.
var Default = Knobs{Path: "/work", N: 10, Wait: 500 * time.Millisecond, Rate: 3, Duration: 5 * time.Second, InFlight: 1}

// Validate reports a knob out of range, naming it; a URL that is not a
// loopback http(s) base URL is refused (strategy.External's rule).
func (k Knobs) Validate() error {
	switch {
	case k.N < 1 || k.N > 1000:
		return fmt.Errorf("byo: n must be in 1..1000, got %d", k.N)
	case k.Wait <= 0 || k.Wait > time.Minute:
		return fmt.Errorf("byo: wait must be in (0, 1m], got %v", k.Wait)
	case !(k.Rate > 0 && k.Rate <= 1000):
		return fmt.Errorf("byo: rate must be in (0, 1000] per second, got %g", k.Rate)
	case k.Duration <= 0 || k.Duration > 5*time.Minute:
		return fmt.Errorf("byo: duration must be in (0, 5m], got %v", k.Duration)
	case k.InFlight < 1 || k.InFlight > 1000:
		return fmt.Errorf("byo: inFlight must be in 1..1000, got %d", k.InFlight)
	case k.Path != "" && !strings.HasPrefix(k.Path, "/"):
		return fmt.Errorf("byo: yourPath must start with /, got %q", k.Path)
	}
	if k.URL != "" {
		if err := (strategy.External{Name: YourServer, URL: k.URL}).Validate(); err != nil {
			return fmt.Errorf("byo: yourURL: %w", err)
		}
	}
	return nil
}

// The rows' labels.
const (
	Concurrent = "concurrent"
	OneAtATime = "one at a time"
	YourServer = "your server"
)

// Demo is a demo server as a strategy: every request waits Wait and
// answers "ok"; with OneAtATime, behind a lock of one (a request whose
// client gives up while it waits for the lock leaves). It listens on a
// loopback port from Start until Close.
type Demo struct {
	Name       string
	Wait       time.Duration
	OneAtATime bool
}

var _ strategy.Strategy = Demo{}

func (d Demo) Label() string { return d.Name }
func (d Demo) Validate() error {
	if d.Wait <= 0 {
		return fmt.Errorf("byo: demo %q: wait must be positive, got %v", d.Name, d.Wait)
	}
	return nil
}

// Start listens on 127.0.0.1 (o.Addr when set) and serves until Close or
// ctx ends.
func (d Demo) Start(ctx context.Context, _ pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("byo: demo %q: %w", d.Name, err)
	}
	one := make(chan struct{}, 1)
	handle := func(w http.ResponseWriter, r *http.Request) {
		if d.OneAtATime {
			select {
			case one <- struct{}{}:
			case <-r.Context().Done():
				return
			}
			defer func() { <-one }()
		}
		t := time.NewTimer(d.Wait)
		defer t.Stop()
		select {
		case <-t.C:
			io.WriteString(w, "ok\n")
		case <-r.Context().Done():
		}
	}
	s := &demoServer{url: "http://" + ln.Addr().String(), srv: &http.Server{Handler: http.HandlerFunc(handle)}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	s.stop = stop
	return s, nil
}

type demoServer struct {
	url  string
	srv  *http.Server
	done chan struct{}
	stop func() bool
	once sync.Once
	err  error
}

func (s *demoServer) URL() string                    { return s.url }
func (s *demoServer) Stats() strategy.Stats          { return strategy.Stats{}.MeasuredOnly() }
func (s *demoServer) Trace() (trace.Snapshot, error) { return trace.Snapshot{}, nil }

// Close closes the listener and every connection at once (handlers still
// waiting end with their requests) and waits for the server to stop.
func (s *demoServer) Close() error {
	s.once.Do(func() {
		if s.stop != nil {
			s.stop()
		}
		if err := s.srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.err = fmt.Errorf("byo: demo server: %w", err)
		}
		<-s.done
	})
	return s.err
}
