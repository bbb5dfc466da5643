package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// protoServer records the protocol of every request and how many
// connections served them.
type protoServer struct {
	*httptest.Server
	mu     sync.Mutex
	protos map[string]int
	conns  atomic.Int64
}

func newProtoServer(t *testing.T, tlsOn, h2, h2c bool) *protoServer {
	t.Helper()
	ps := &protoServer{protos: map[string]int{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps.mu.Lock()
		ps.protos[r.Proto]++
		ps.mu.Unlock()
		time.Sleep(time.Millisecond)
		io.WriteString(w, "ok")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refusals' handshake errors are expected
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetHTTP2(h2)
	srv.Config.Protocols.SetUnencryptedHTTP2(h2c)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			ps.conns.Add(1)
		}
	}
	if tlsOn {
		srv.EnableHTTP2 = h2
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	ps.Server = srv
	return ps
}

func (ps *protoServer) trust() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(ps.Certificate())
	return &tls.Config{RootCAs: pool}
}

// HTTP/2 over TLS (ALPN) and h2c: every request succeeds and the server
// sees HTTP/2; the summary says the protocol; workers share connections
// Streams at a time, and the result counts them and the streams.
func TestHTTP2(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		tls, h2c       bool
		vus, streams   int
		proto, served  string
		wantConns      int64
		withoutTrusted bool
	}{
		{"h2 over TLS", true, false, 6, 3, "h2", "HTTP/2.0", 2, false},
		{"h2c", false, true, 5, 2, "h2c", "HTTP/2.0", 3, false},
		{"h2c one stream each", false, true, 4, 1, "h2c", "HTTP/2.0", 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newProtoServer(t, tc.tls, true, tc.h2c)
			o := Options{HTTP2: true, Streams: tc.streams}
			if tc.tls {
				o.TLS = srv.trust()
			}
			res, err := Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: tc.vus, Total: 300}, o)
			if err != nil {
				t.Fatal(err)
			}
			srv.mu.Lock()
			served := srv.protos[tc.served]
			srv.mu.Unlock()
			if res.Count() != 300 || res.Errors() != 0 || served != 300 {
				t.Errorf("%d requests, %d errors, %d served as %s; want 300, 0, 300 (%v)", res.Count(), res.Errors(), served, tc.served, res.ErrorSamples)
			}
			if res.Protocol != tc.proto || res.Connections != tc.wantConns || res.Streams != 300 || srv.conns.Load() != tc.wantConns {
				t.Errorf("protocol %q, %d connections (server saw %d), %d streams; want %q, %d, 300", res.Protocol, res.Connections, srv.conns.Load(), res.Streams, tc.proto, tc.wantConns)
			}
			if s := res.String(); !strings.Contains(s, "protocol: "+tc.proto) {
				t.Errorf("summary does not say the protocol:\n%s", s)
			}
			if got := res.Summary().Text("protocol", 0); got != tc.proto {
				t.Errorf("summary column protocol = %q", got)
			}
		})
	}
}

// HTTPS with HTTP/1.1 goes through the generator's own client; HTTP/2
// asked of a server that does not speak it fails every request, saying
// so; an untrusted certificate is a TLS error.
func TestHTTPSAndRefusals(t *testing.T) {
	t.Parallel()
	srv := newProtoServer(t, true, false, false)
	res, err := Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: 3, Total: 60}, Options{TLS: srv.trust()})
	if err != nil || res.Count() != 60 || res.Errors() != 0 || res.Protocol != "HTTP/1.1+TLS" || res.Connections != 3 {
		t.Errorf("HTTPS: err %v, %d requests, %d errors, %q over %d connections; want 60, 0, HTTP/1.1+TLS over 3", err, res.Count(), res.Errors(), res.Protocol, res.Connections)
	}
	res, err = Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: 2, Total: 4}, Options{TLS: srv.trust(), HTTP2: true})
	if err == nil || res.Outcomes(metrics.Conn)+res.Outcomes(metrics.Other) != 4 || !strings.Contains(err.Error(), "h2") {
		t.Errorf("h2 to an HTTP/1.1 server: err %v, %d conn + %d other errors; want all 4 failing, naming h2", err, res.Outcomes(metrics.Conn), res.Outcomes(metrics.Other))
	}
	res, err = Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: 1, Total: 2}, Options{})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted certificate: err %v", err)
	}
	plain := newProtoServer(t, false, false, false)
	res, err = Run(context.Background(), Target{URL: plain.URL}, Closed{VUs: 1, Total: 2}, Options{HTTP2: true})
	if err == nil || res.Errors() != 2 || !strings.Contains(err.Error(), "h2c") {
		t.Errorf("h2c to an HTTP/1.1 server: err %v, %d errors; want both failing, naming h2c", err, res.Errors())
	}
	// HTTP/1.1 stays the default, over one connection per worker.
	res, err = Run(context.Background(), Target{URL: plain.URL}, Closed{VUs: 3, Total: 30}, Options{})
	if err != nil || res.Protocol != "HTTP/1.1" || res.Connections != 3 || res.Streams != 0 {
		t.Errorf("HTTP/1.1: err %v, %q, %d connections, %d streams", err, res.Protocol, res.Connections, res.Streams)
	}
}
