package load

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

func TestBadInput(t *testing.T) {
	t.Parallel()
	srv := sleepServer(t, 0)
	ok := Target{URL: srv.URL}
	cases := []struct {
		name   string
		target Target
		model  Model
		opts   Options
		want   string
	}{
		{"empty URL", Target{}, Burst{N: 1}, Options{}, "URL is empty"},
		{"malformed URL", Target{URL: "http://[::1"}, Burst{N: 1}, Options{}, "malformed target URL"},
		{"no scheme", Target{URL: "127.0.0.1:8080/x"}, Burst{N: 1}, Options{}, "malformed target URL"},
		{"ftp", Target{URL: "ftp://127.0.0.1/"}, Burst{N: 1}, Options{}, "want http://"},
		{"streams without http2", ok, Burst{N: 1}, Options{Streams: 4}, "needs HTTP2"},
		{"too many streams", ok, Burst{N: 1}, Options{HTTP2: true, Streams: 5000}, "Streams must be in 0..1000"},
		{"bad threshold", ok, Burst{N: 1}, Options{Thresholds: []string{"p95<fast"}}, `threshold "p95<fast"`},
		{"no host", Target{URL: "http:///x"}, Burst{N: 1}, Options{}, "no host"},
		{"remote IP", Target{URL: "http://192.0.2.1/"}, Burst{N: 1}, Options{}, "not loopback"},
		{"remote IPv6", Target{URL: "http://[2001:db8::1]:80/"}, Burst{N: 1}, Options{}, "not loopback"},
		{"bad method", Target{URL: srv.URL, Method: "GET /x"}, Burst{N: 1}, Options{}, "unsupported method"},
		{"missing upload", Target{URL: srv.URL, Files: []File{{Field: "f", Path: "/no/such/file.jpg"}}}, Burst{N: 1}, Options{}, "no such file"},
		{"upload without field", Target{URL: srv.URL, Files: []File{{Data: []byte("x")}}}, Burst{N: 1}, Options{}, "no form field"},
		{"body and files", Target{URL: srv.URL, Body: []byte("x"), Files: []File{{Field: "f", Data: []byte("x")}}}, Burst{N: 1}, Options{}, "both Body and Files"},
		{"header set by generator", Target{URL: srv.URL, Header: http.Header{"Host": {"x"}}}, Burst{N: 1}, Options{}, "set by the generator"},
		{"header line break", Target{URL: srv.URL, Header: http.Header{"X": {"a\r\nb: c"}}}, Burst{N: 1}, Options{}, "line break"},
		{"nil model", ok, nil, Options{}, "no model"},
		{"zero burst", ok, Burst{}, Options{}, "Burst.N must be in 1..100000"},
		{"huge burst", ok, Burst{N: 100_000_000}, Options{}, "Burst.N must be in 1..100000, got 100000000"},
		{"huge VUs", ok, Closed{VUs: 100_000_000, Iterations: 1}, Options{}, "Closed.VUs must be in 1..100000, got 100000000"},
		{"huge stage target", ok, RampingVUs{Start: 1, Stages: []Stage{{Duration: time.Second, Target: 1e9}}}, Options{}, "stage 0: target must be at most 100000"},
		{"no stages", ok, RampingVUs{Start: 1}, Options{}, "RampingVUs.Stages: no stages"},
		{"huge rate stage", ok, RampingRate{Stages: []Stage{{Duration: time.Second, Target: 1e12}}}, Options{}, "stage 0: target must be at most 1e+07"},
		{"negative start rate", ok, RampingRate{Start: -1, Stages: []Stage{{Duration: time.Second, Target: 1}}}, Options{}, "RampingRate.Start must be"},
		{"negative idle", ok, Idle{Duration: -1}, Options{}, "Idle.Duration must not be negative"},
		{"huge MaxInFlight", ok, Open{Rate: 5, Duration: time.Second, MaxInFlight: 1 << 30}, Options{}, "MaxInFlight must be in 0..100000"},
		{"negative sequential", ok, Sequential{N: -1}, Options{}, "Sequential.N must be positive"},
		{"zero VUs", ok, Closed{Duration: time.Second}, Options{}, "VUs must be in 1..100000, got 0"},
		{"negative VUs", ok, Closed{VUs: -3, Duration: time.Second}, Options{}, "VUs must be in 1..100000, got -3"},
		{"negative duration", ok, Closed{VUs: 1, Duration: -time.Second}, Options{}, "Duration must not be negative"},
		{"unbounded closed", ok, Closed{VUs: 1}, Options{}, "needs a Duration"},
		{"negative think", ok, Closed{VUs: 1, Duration: time.Second, Think: -1}, Options{}, "Think must not be negative"},
		{"zero rate", ok, Open{Duration: time.Second}, Options{}, "Rate must be a positive"},
		{"negative rate", ok, Open{Rate: -5, Duration: time.Second}, Options{}, "Rate must be a positive"},
		{"open no duration", ok, Open{Rate: 5}, Options{}, "Duration must be positive"},
		{"bad stage", ok, RampingRate{Start: 5, Stages: []Stage{{Duration: 0, Target: 1}}}, Options{}, "stage 0: duration"},
		{"negative stage target", ok, RampingVUs{Start: 1, Stages: []Stage{{Duration: time.Second, Target: -1}}}, Options{}, "stage 0: target"},
		{"negative timeout", ok, Burst{N: 1}, Options{Timeout: -1}, "Timeout must not be negative"},
		{"negative max requests", ok, Burst{N: 1}, Options{MaxRequests: -1}, "MaxRequests"},
		{"tiny interval", ok, Burst{N: 1}, Options{Interval: time.Microsecond}, "Interval must be at least"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(context.Background(), tc.target, tc.model, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run = %v; want an error containing %q", err, tc.want)
			}
			if res != nil {
				t.Errorf("Run returned a result with a validation error")
			}
		})
	}
}

func TestRemoteAllowed(t *testing.T) {
	t.Parallel()
	// With AllowRemote the check passes; the loopback server still answers
	// through a name (localhost) and an explicit IPv4 address.
	srv := sleepServer(t, 0)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, u := range []string{"http://localhost:" + port + "/", srv.URL} {
		res, err := Run(context.Background(), Target{URL: u}, Sequential{N: 2}, Options{AllowRemote: u == srv.URL})
		if err != nil || res.Count() != 2 || res.Errors() != 0 {
			t.Errorf("%s: err=%v res=%v", u, err, res)
		}
	}
	if err := checkLoopback(context.Background(), "192.0.2.1", true); err != nil {
		t.Errorf("AllowRemote: %v", err)
	}
}

func TestRefusedConnections(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	for i, m := range []Model{Burst{N: 5}, Closed{VUs: 2, Duration: 200 * time.Millisecond}, Closed{VUs: 2, Duration: 200 * time.Millisecond}, Open{Rate: 50, Duration: 200 * time.Millisecond}} {
		start := time.Now()
		res, err := Run(context.Background(), Target{URL: "http://" + addr + "/"}, m, paths[i%2].on(Options{}))
		if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "requests to") {
			t.Errorf("%v: err = %v; want 'all N requests ... failed ... refused'", m, err)
		}
		if res == nil || res.Count() == 0 || res.Outcomes(metrics.Conn) != res.Count() {
			t.Errorf("%v: result %v; want every request counted as a connection error", m, res)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("%v: took %v", m, el)
		}
	}
}

// A server that dies mid-run: the requests after its death are counted as
// connection errors, the run ends on time, nothing hangs.
func TestServerDiesMidRun(t *testing.T) {
	t.Parallel()
	for i, m := range []Model{Closed{VUs: 4, Duration: time.Second}, Closed{VUs: 4, Duration: time.Second}, Open{Rate: 200, Duration: time.Second, MaxInFlight: 4}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Millisecond)
			io.WriteString(w, "ok")
		}))
		time.AfterFunc(300*time.Millisecond, func() {
			srv.CloseClientConnections()
			srv.Close()
		})
		start := time.Now()
		res, err := Run(context.Background(), Target{URL: srv.URL}, m, paths[i%2].on(Options{Timeout: time.Second}))
		if err != nil {
			t.Fatalf("%v: %v (some requests succeeded, so no error is expected)", m, err)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("%v: run took %v; want ≈1s", m, el)
		}
		if res.Latency.Count == 0 || res.Outcomes(metrics.Conn) == 0 {
			t.Errorf("%v: ok=%d conn errors=%d; want both before and after the death\n%s", m, res.Latency.Count, res.Outcomes(metrics.Conn), res)
		}
	}
}

// A server that answers garbage: counted as "other" errors.
func TestMalformedResponses(t *testing.T) {
	t.Parallel()
	for i, reply := range []string{"garbage\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"garbage\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					buf := make([]byte, 4096)
					c.SetReadDeadline(time.Now().Add(2 * time.Second))
					if _, err := c.Read(buf); err == nil {
						io.WriteString(c, reply)
					}
				}()
			}
		}()
		res, err := Run(context.Background(), Target{URL: "http://" + ln.Addr().String() + "/"}, Sequential{N: 2}, paths[i/4].on(Options{Timeout: time.Second}))
		ln.Close()
		if err == nil || res == nil || res.Outcomes(metrics.Other) != 2 || !strings.Contains(err.Error(), "malformed response") {
			t.Errorf("reply %q: err=%v res=%v; want 2 'other' errors, malformed response", reply, err, res)
		}
	}
}

func TestContextAlreadyCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Target{URL: "http://127.0.0.1:1/"}, Burst{N: 1}, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
}

func TestPacers(t *testing.T) {
	t.Parallel()
	// Clock-free: walk each pacer as the generator would, hits sent exactly when due.
	walk := func(p Pacer) (hits int64, last time.Duration) {
		var el time.Duration
		for hits < 1_000_000 {
			w, stop := p.Pace(el, hits)
			if stop {
				return hits, last
			}
			el += max(w, 0)
			last = el
			hits++
		}
		return hits, last
	}
	cases := []struct {
		name     string
		p        Pacer
		min, max int64
	}{
		{"constant", ConstantPacer{PerSecond: 100, Duration: 2 * time.Second}, 200, 200},
		{"ramp up", StagesPacer{Start: 0, Stages: []Stage{{Duration: 2 * time.Second, Target: 100}}}, 100, 101},
		{"ramp down", StagesPacer{Start: 100, Stages: []Stage{{Duration: 2 * time.Second, Target: 0}}}, 100, 101},
		{"steps", StagesPacer{Start: 10, Stages: []Stage{{Duration: time.Second, Target: 10}, {Duration: time.Second, Target: 0}, {Duration: time.Second, Target: 0}, {Duration: time.Second, Target: 30}}}, 30, 31},
		{"poisson", NewPoissonPacer(1000, 10*time.Second, 7), 9700, 10300},
	}
	for _, tc := range cases {
		n, last := walk(tc.p)
		if n < tc.min || n > tc.max {
			t.Errorf("%s: %d hits; want %d–%d", tc.name, n, tc.min, tc.max)
		}
		if tc.name == "steps" && last < 3*time.Second {
			t.Errorf("steps: last hit at %v; want in the last stage (after 3s)", last)
		}
	}
	// A Poisson pacer reused by a second run replays the same arrivals.
	pp := NewPoissonPacer(100, time.Second, 3)
	w1, _ := pp.Pace(0, 5)
	walk(pp)
	if w2, _ := pp.Pace(0, 5); w2 != w1 {
		t.Errorf("reused poisson pacer: hit 5 due at %v, first time %v", w2, w1)
	}
	// Overdue hits have a negative wait: intended = elapsed + wait.
	if w, _ := (ConstantPacer{PerSecond: 10}).Pace(time.Second, 5); w != -500*time.Millisecond {
		t.Errorf("overdue wait = %v; want -500ms", w)
	}
	if r := (StagesPacer{Start: 0, Stages: []Stage{{Duration: time.Second, Target: 100}}}).Rate(500 * time.Millisecond); r != 50 {
		t.Errorf("ramp rate at half = %v; want 50", r)
	}
}
