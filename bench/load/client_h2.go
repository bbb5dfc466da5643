package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// h2 is the HTTP/2 transport, net/http's client speaking only HTTP/2: over
// TLS, negotiated by ALPN ("h2"), to an https:// target; cleartext with
// prior knowledge (h2c) to an http:// one. A server that does not speak
// it fails every request with an error saying so.
//
// Workers share connections Options.Streams at a time: worker w uses
// group w/Streams, an http.Transport of its own limited to one connection,
// so the run opens workers/Streams connections (rounded up), each carrying
// up to Streams streams at once (a server that allows fewer concurrent
// streams makes the others wait); a connection lost is dialled again.
type h2 struct {
	p        *prepared
	o        *Options
	proto    string
	perConn  int
	mu       sync.Mutex
	groups   []*h2group
	conns    atomic.Int64
	nstreams atomic.Int64
	closed   bool
}

type h2group struct {
	rt  *http.Transport
	cid atomic.Int64 // the group's latest connection
}

func newH2(p *prepared, o *Options) *h2 {
	t := &h2{p: p, o: o, proto: "h2c", perConn: o.Streams}
	if p.tls {
		t.proto = "h2"
	}
	return t
}

func (t *h2) newGroup() *h2group {
	g := &h2group{}
	d := &net.Dialer{}
	protos := new(http.Protocols)
	rt := &http.Transport{
		Protocols:          protos,
		DisableCompression: true,
		ForceAttemptHTTP2:  true,
		MaxConnsPerHost:    1, // the group's one connection, dialled once
		IdleConnTimeout:    time.Minute,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err == nil {
				g.cid.Store(t.conns.Add(1))
			}
			return c, err
		},
	}
	if t.p.tls {
		protos.SetHTTP2(true)
		rt.TLSClientConfig = tlsConfig(t.o.TLS, t.p.url.Hostname(), "h2")
	} else {
		protos.SetUnencryptedHTTP2(true)
	}
	g.rt = rt
	return g
}

func (t *h2) conn(w int) conn {
	i := w / t.perConn
	t.mu.Lock()
	for len(t.groups) <= i {
		t.groups = append(t.groups, t.newGroup())
	}
	g := t.groups[i]
	t.mu.Unlock()
	return &h2conn{t: t, g: g}
}

func (t *h2) protocol() string   { return t.proto }
func (t *h2) connections() int64 { return t.conns.Load() }
func (t *h2) streams() int64     { return t.nstreams.Load() }

func (t *h2) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.closed = true
	for _, g := range t.groups {
		g.rt.CloseIdleConnections()
	}
}

// h2conn is one worker's stream slot on its group's connection.
type h2conn struct {
	t   *h2
	g   *h2group
	cid int64
}

func (c *h2conn) id() int64  { return c.cid }
func (c *h2conn) interrupt() {} // requests carry the run's context
func (c *h2conn) close()     {}

func (c *h2conn) do(ctx context.Context, s *metrics.Sample) (sent, done time.Time, status int) {
	p := c.t.p
	rctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var wrote, first time.Time
	if c.t.o.PhaseTimings {
		var dialed time.Time
		rctx = httptrace.WithClientTrace(rctx, &httptrace.ClientTrace{
			ConnectStart:         func(string, string) { dialed = time.Now() },
			ConnectDone:          func(string, string, error) { s.Connect = time.Since(dialed) },
			WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = time.Now() },
			GotFirstResponseByte: func() { first = time.Now() },
		})
	}
	req, err := http.NewRequestWithContext(rctx, p.method, p.url.String(), bytes.NewReader(p.body))
	if err != nil {
		c.fail(ctx, rctx, s, err)
		return time.Now(), time.Now(), 0
	}
	req.Header = p.header
	req.ContentLength = int64(len(p.body))
	sent = time.Now()
	resp, err := c.g.rt.RoundTrip(req)
	c.cid = c.g.cid.Load()
	if err != nil {
		c.fail(ctx, rctx, s, fmt.Errorf("%s: %w", c.t.proto, err))
		return sent, time.Now(), 0
	}
	c.t.nstreams.Add(1)
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	done = time.Now()
	s.BytesIn, s.BytesOut = n, int64(len(p.body))
	if err != nil {
		c.fail(ctx, rctx, s, fmt.Errorf("read: %w", err))
		return sent, done, 0
	}
	if resp.ProtoMajor != 2 {
		c.fail(ctx, rctx, s, &protoError{fmt.Sprintf("the server answered %s, not HTTP/2", resp.Proto)})
		return sent, done, 0
	}
	if c.t.o.PhaseTimings && !first.IsZero() {
		if !wrote.IsZero() {
			s.Wait = first.Sub(wrote)
		}
		s.Read = done.Sub(first)
	}
	s.Outcome = outcomeOf(resp.StatusCode)
	return sent, done, resp.StatusCode
}

// fail classifies err into s: interrupted when the run's context ended,
// a timeout when the request's did, else a connection error (or, for a
// response the client could not take, other).
func (c *h2conn) fail(ctx, rctx context.Context, s *metrics.Sample, err error) {
	s.Err = err
	var ne net.Error
	var pe *protoError
	switch {
	case ctx.Err() != nil:
		s.Outcome = metrics.Interrupted
	case rctx.Err() != nil, errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		s.Outcome = metrics.Timeout
	case errors.As(err, &pe):
		s.Outcome = metrics.Other
	default:
		s.Outcome = metrics.Conn
	}
}
