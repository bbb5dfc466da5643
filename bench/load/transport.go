package load

import (
	"context"
	"crypto/tls"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// A transport carries a run's requests: HTTP/1.1 (h1: the generator's own
// client, plain or over TLS) or HTTP/2 (h2: net/http's, over TLS or h2c).
// It hands each worker a conn; close is safe to call twice.
type transport interface {
	conn(worker int) conn
	protocol() string
	connections() int64
	streams() int64
	close()
}

// A conn is one worker's way to the target, used by that worker's
// goroutine only; interrupt (the hard stop) may be called from another.
type conn interface {
	// do performs one request and fills s (outcome, error, bytes, phase
	// timings; the caller sets the latencies from the times). sent is when
	// the request's bytes started to go out, done when the response's last
	// byte arrived, status the response's code (0: none).
	do(ctx context.Context, s *metrics.Sample) (sent, done time.Time, status int)
	// interrupt makes blocked I/O fail at once.
	interrupt()
	close()
	// id is the number of the connection that carried the last request.
	id() int64
}

// newTransport validates t and builds the transport o asks for.
func newTransport(ctx context.Context, t Target, o *Options) (transport, error) {
	p, err := t.prepare(ctx, o)
	if err != nil {
		return nil, err
	}
	if o.HTTP2 {
		return newH2(p, o), nil
	}
	return newH1(p, o), nil
}

// tlsConfig is base (nil: the defaults) for serverName, offering alpn.
func tlsConfig(base *tls.Config, serverName string, alpn ...string) *tls.Config {
	c := &tls.Config{}
	if base != nil {
		c = base.Clone()
	}
	if c.ServerName == "" {
		c.ServerName = serverName
	}
	c.NextProtos = alpn
	return c
}
