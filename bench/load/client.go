package load

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// The generator speaks HTTP/1.1 itself: a request serialised once and
// written as one slice, responses parsed in place (respParser) from a
// reused buffer and bodies discarded. That keeps the hot path free of
// allocations (net/http costs several and goroutine hand-offs per
// request). Closed models over plain TCP on Linux run on event loops
// (evloop_linux.go); everything else here: one goroutine and one
// connection per worker.

// readBufSize bounds a response header line and is the read buffer: a
// worker's per connection (8 KiB × 1000 connections is 8 MB), an event
// loop's one for all its VUs.
const readBufSize = 8 << 10

var pastDeadline = time.Unix(1, 0)

// h1 is the HTTP/1.1 transport: the request serialised once and shared
// read-only by the workers, each with a connection of its own.
type h1 struct {
	raw       []byte // head + body
	addr      string // host:port to dial
	tlsConf   *tls.Config
	head      bool // HEAD: responses have no body
	closeConn bool // new connection per request
	timeout   time.Duration
	phases    bool
	conns     atomic.Int64 // connections opened
}

func newH1(p *prepared, o *Options) *h1 {
	t := &h1{raw: p.raw(o.NewConnPerRequest), addr: p.addr, head: p.head, closeConn: o.NewConnPerRequest,
		timeout: o.Timeout, phases: o.PhaseTimings}
	if p.tls {
		t.tlsConf = tlsConfig(o.TLS, p.url.Hostname(), "http/1.1")
	}
	return t
}

func (t *h1) conn(int) conn {
	return &h1conn{t: t, buf: make([]byte, readBufSize), p: respParser{head: t.head}}
}

func (t *h1) protocol() string {
	if t.tlsConf != nil {
		return "HTTP/1.1+TLS"
	}
	return "HTTP/1.1"
}

func (t *h1) connections() int64 { return t.conns.Load() }
func (t *h1) streams() int64     { return 0 }
func (t *h1) close()             {}

// h1conn is one worker's HTTP/1.1 connection. It is used by one
// goroutine; the hard stop hook may touch it concurrently through mu.
type h1conn struct {
	t      *h1
	dialer net.Dialer
	mu     sync.Mutex
	c      net.Conn
	buf    []byte
	p      respParser
	cid    int64 // the connection's number
}

func (w *h1conn) id() int64 { return w.cid }

// interrupt makes any blocked I/O fail at once (the hard stop).
func (w *h1conn) interrupt() {
	w.mu.Lock()
	if w.c != nil {
		_ = w.c.SetDeadline(pastDeadline)
	}
	w.mu.Unlock()
}

func (w *h1conn) close() {
	w.mu.Lock()
	if w.c != nil {
		_ = w.c.Close()
		w.c = nil
	}
	w.mu.Unlock()
}

// do implements conn.
func (w *h1conn) do(ctx context.Context, s *metrics.Sample) (sent, done time.Time, status int) {
	for attempt := 0; ; attempt++ {
		reused := w.c != nil
		sent, done, status = w.once(ctx, s)
		// A kept-alive connection the server closed while idle fails before
		// any response byte: retry once on a fresh connection, like net/http.
		if reused && attempt == 0 && s.Err != nil && s.BytesIn == 0 && isStaleConn(s.Err) && ctx.Err() == nil {
			*s = metrics.Sample{}
			continue
		}
		return sent, done, status
	}
}

func isStaleConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (w *h1conn) once(ctx context.Context, s *metrics.Sample) (sent, done time.Time, status int) {
	r := w.t
	start := time.Now()
	var deadline time.Time
	if r.timeout > 0 {
		deadline = start.Add(r.timeout)
	}
	if w.c == nil {
		if err := w.dial(ctx, deadline); err != nil {
			w.fail(ctx, s, err)
			return start, time.Now(), 0
		}
		if r.phases {
			s.Connect = time.Since(start)
		}
	}
	if err := w.c.SetDeadline(deadline); err != nil {
		w.fail(ctx, s, err)
		return start, time.Now(), 0
	}
	// Checked after setting the deadline: a hard stop from here on sets a
	// past deadline that our own SetDeadline can no longer overwrite.
	if ctx.Err() != nil {
		s.Outcome = metrics.Interrupted
		w.close()
		return start, time.Now(), 0
	}
	sent = time.Now()
	if _, err := w.c.Write(r.raw); err != nil {
		w.fail(ctx, s, fmt.Errorf("write: %w", err))
		return sent, time.Now(), 0
	}
	s.BytesOut = int64(len(r.raw))
	var wrote, first time.Time
	if r.phases {
		wrote = time.Now()
	}
	status, keep, err := w.readResponse(&first)
	s.BytesIn = w.p.n
	done = time.Now()
	if err != nil {
		w.fail(ctx, s, fmt.Errorf("read: %w", err))
		return sent, done, 0
	}
	if r.phases {
		s.Wait, s.Read = first.Sub(wrote), done.Sub(first)
	}
	s.Outcome = outcomeOf(status)
	if !keep || r.closeConn {
		w.close()
	}
	return sent, done, status
}

// readResponse reads one response; first is set to when its first bytes
// came. A connection that holds bytes beyond the response (a server that
// answered more than once) is out of step: it is not kept.
func (w *h1conn) readResponse(first *time.Time) (status int, keep bool, err error) {
	w.p.reset()
	for {
		n, err := w.c.Read(w.buf)
		if n > 0 {
			if first.IsZero() {
				*first = time.Now()
			}
			used, done, perr := w.p.feed(w.buf[:n])
			if perr != nil {
				return 0, false, perr
			}
			if done {
				return w.p.status, w.p.keep && used == n, nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				done, perr := w.p.eof()
				if done {
					return w.p.status, false, nil
				}
				err = perr
			}
			return 0, false, err
		}
	}
}

func outcomeOf(status int) metrics.Outcome {
	switch {
	case status >= 500:
		return metrics.Status5xx
	case status >= 400:
		return metrics.Status4xx
	}
	return metrics.OK
}

// dial opens the worker's connection (with TLS, the handshake too).
func (w *h1conn) dial(ctx context.Context, deadline time.Time) error {
	d := w.dialer
	d.Deadline = deadline
	c, err := d.DialContext(ctx, "tcp", w.t.addr)
	if err != nil {
		return err // *net.OpError: "dial tcp ADDR: connect: ..."
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if w.t.tlsConf != nil {
		tc := tls.Client(c, w.t.tlsConf)
		_ = c.SetDeadline(deadline)
		w.mu.Lock()
		w.c = tc // so that the hard stop can interrupt the handshake
		w.mu.Unlock()
		if err := tc.HandshakeContext(ctx); err != nil {
			w.close()
			return fmt.Errorf("TLS handshake: %w", err)
		}
		c = tc
	}
	w.mu.Lock()
	w.c = c
	w.mu.Unlock()
	w.cid = w.t.conns.Add(1)
	return nil
}

// fail classifies err into s and drops the connection.
func (w *h1conn) fail(ctx context.Context, s *metrics.Sample, err error) {
	w.close()
	s.Err = err
	var ne net.Error
	var pe *protoError
	switch {
	case ctx.Err() != nil:
		s.Outcome = metrics.Interrupted
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		s.Outcome = metrics.Timeout
	case errors.As(err, &pe):
		s.Outcome = metrics.Other
	default:
		s.Outcome = metrics.Conn
	}
}
