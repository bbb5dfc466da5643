package load

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// The generator speaks HTTP/1.1 itself over plain TCP: one connection per
// worker, a request serialised once and written as one slice, responses
// parsed in place from a reused bufio.Reader and bodies discarded through
// it. That keeps the hot path free of allocations, which is what lets one
// process keep up with wrk on loopback (net/http costs several allocations
// and goroutine hand-offs per request).

// readBufSize bounds a response header line and is the per-connection
// read buffer: 8 KiB × 1000 connections is 8 MB.
const readBufSize = 8 << 10

var (
	hdrContentLength    = []byte("content-length")
	hdrTransferEncoding = []byte("transfer-encoding")
	hdrConnection       = []byte("connection")
	valChunked          = []byte("chunked")
	valClose            = []byte("close")
	pastDeadline        = time.Unix(1, 0)
)

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
	return &h1conn{t: t, br: bufio.NewReaderSize(nil, readBufSize)}
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

// protoError is a malformed response.
type protoError struct{ msg string }

func (e *protoError) Error() string { return "malformed response: " + e.msg }

// h1conn is one worker's HTTP/1.1 connection. It is used by one
// goroutine; the hard stop hook may touch it concurrently through mu.
type h1conn struct {
	t      *h1
	dialer net.Dialer
	mu     sync.Mutex
	c      net.Conn
	br     *bufio.Reader
	n      int64 // bytes consumed from br for the current response
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
	if w.c != nil && w.br.Buffered() > 0 {
		// Bytes nobody asked for are waiting (a server that answered more
		// than once): the connection is out of step, start afresh.
		w.close()
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
	var first time.Time
	if r.phases {
		wrote := time.Now()
		if _, err := w.br.Peek(1); err != nil {
			w.fail(ctx, s, fmt.Errorf("read: %w", err))
			return sent, time.Now(), 0
		}
		first = time.Now()
		s.Wait = first.Sub(wrote)
	}
	w.n = 0
	status, keep, err := w.readResponse()
	s.BytesIn = w.n
	done = time.Now()
	if err != nil {
		w.fail(ctx, s, fmt.Errorf("read: %w", err))
		return sent, done, 0
	}
	if r.phases {
		s.Read = done.Sub(first)
	}
	s.Outcome = outcomeOf(status)
	if !keep || r.closeConn {
		w.close()
	}
	return sent, done, status
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
	w.br.Reset(c)
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

// line reads one CRLF-terminated line without its terminator.
func (w *h1conn) line() ([]byte, error) {
	b, err := w.br.ReadSlice('\n')
	w.n += int64(len(b))
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, &protoError{"header line longer than 8 KiB"}
		}
		if errors.Is(err, io.EOF) && len(b) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b, nil
}

// readResponse reads one full response (skipping 1xx interim responses)
// and returns its status and whether the connection may be reused.
func (w *h1conn) readResponse() (status int, keep bool, err error) {
	for {
		status, keep, err = w.readOne()
		if status == 101 { // switched protocols: the connection is no longer HTTP
			return status, false, err
		}
		if err != nil || status >= 200 {
			return status, keep, err
		}
	}
}

func (w *h1conn) readOne() (status int, keep bool, err error) {
	l, err := w.line()
	if err != nil {
		return 0, false, err
	}
	if len(l) < 12 || !bytes.HasPrefix(l, []byte("HTTP/1.")) || l[8] != ' ' {
		return 0, false, &protoError{fmt.Sprintf("status line %q", truncate(l))}
	}
	keep = l[7] == '1' // HTTP/1.1 keeps alive by default; 1.0 does not
	for _, c := range l[9:12] {
		if c < '0' || c > '9' {
			return 0, false, &protoError{fmt.Sprintf("status line %q", truncate(l))}
		}
		status = status*10 + int(c-'0')
	}
	length := int64(-1)
	chunked := false
	for {
		h, err := w.line()
		if err != nil {
			return status, false, err
		}
		if len(h) == 0 {
			break
		}
		i := bytes.IndexByte(h, ':')
		if i <= 0 {
			return status, false, &protoError{fmt.Sprintf("header %q", truncate(h))}
		}
		name, val := h[:i], bytes.TrimSpace(h[i+1:])
		switch {
		case bytes.EqualFold(name, hdrContentLength):
			n, err := strconv.ParseInt(string(val), 10, 64) // no allocation: the conversion is optimised away
			if err != nil || n < 0 {
				return status, false, &protoError{fmt.Sprintf("Content-Length %q", truncate(val))}
			}
			length = n
		case bytes.EqualFold(name, hdrTransferEncoding):
			chunked = containsFold(val, valChunked)
		case bytes.EqualFold(name, hdrConnection):
			if containsFold(val, valClose) {
				keep = false
			} else if containsFold(val, []byte("keep-alive")) {
				keep = true
			}
		}
	}
	if w.t.head || status < 200 || status == 204 || status == 304 {
		return status, keep, nil
	}
	switch {
	case chunked:
		return status, keep, w.readChunked()
	case length >= 0:
		n, err := w.br.Discard(int(length))
		w.n += int64(n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return status, false, err
		}
		return status, keep, nil
	default: // body until the server closes
		for {
			n, err := w.br.Discard(readBufSize)
			w.n += int64(n)
			if errors.Is(err, io.EOF) {
				return status, false, nil
			}
			if err != nil {
				return status, false, err
			}
		}
	}
}

func (w *h1conn) readChunked() error {
	for {
		l, err := w.line()
		if err != nil {
			return err
		}
		if i := bytes.IndexByte(l, ';'); i >= 0 {
			l = l[:i]
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(l)), 16, 64)
		if err != nil || size < 0 {
			return &protoError{fmt.Sprintf("chunk size %q", truncate(l))}
		}
		if size == 0 {
			for { // trailers, then the blank line
				t, err := w.line()
				if err != nil {
					return err
				}
				if len(t) == 0 {
					return nil
				}
			}
		}
		n, err := w.br.Discard(int(size))
		w.n += int64(n)
		if err != nil {
			return err
		}
		if l, err := w.line(); err != nil {
			return err
		} else if len(l) != 0 {
			return &protoError{"chunk not followed by CRLF"}
		}
	}
}

func containsFold(s, sub []byte) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if bytes.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func truncate(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
}
