package load

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// oneShotServer answers one request per connection, then closes it after
// linger without saying so (no Connection: close): the client's kept-alive
// connection goes stale.
func oneShotServer(t *testing.T, linger time.Duration) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				r := bufio.NewReader(c)
				if _, err := http.ReadRequest(r); err != nil {
					return
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				time.Sleep(linger)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/", &conns
}

// A kept-alive connection the server closes is not an error: closed while
// the VU thinks, the next request opens a new one; closed just as the
// request goes out, it is retried once on a new one. Both paths.
func TestStaleConnections(t *testing.T) {
	t.Parallel()
	for _, path := range paths {
		for _, tc := range []struct {
			name   string
			linger time.Duration
			think  time.Duration
		}{
			{"closed while thinking", 0, 30 * time.Millisecond},
			{"closed as the next request goes out", 5 * time.Millisecond, 0},
		} {
			url, conns := oneShotServer(t, tc.linger)
			res, err := Run(context.Background(), Target{URL: url}, Closed{VUs: 2, Iterations: 5, Think: tc.think}, path.on(Options{Timeout: 2 * time.Second}))
			if err != nil || res.Outcomes(metrics.OK) != 10 || res.Errors() != 0 || conns.Load() != 10 {
				t.Errorf("%s, %s: err %v, %d OK, %d errors %q, %d connections; want 10 OK on 10 connections", path.name, tc.name, err, res.Outcomes(metrics.OK), res.Errors(), res.ErrorSamples, conns.Load())
			}
		}
	}
}

// A request larger than the socket buffers goes out in parts (the loop
// waits for writability between them): the server gets every byte.
func TestLargeRequestBody(t *testing.T) {
	t.Parallel()
	var sizes []int64
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Add(n)
	}))
	t.Cleanup(srv.Close)
	body := []byte(strings.Repeat("b", 16<<20))
	for _, path := range paths {
		got.Store(0)
		res, err := Run(context.Background(), Target{URL: srv.URL, Body: body}, Closed{VUs: 2, Total: 6}, path.on(Options{}))
		if err != nil || res.Outcomes(metrics.OK) != 6 || got.Load() != 6*int64(len(body)) || res.BytesOut() < 6*int64(len(body)) {
			t.Errorf("%s: err %v, %d OK; server got %d bytes, sent %d; want 6 × %d", path.name, err, res.Outcomes(metrics.OK), got.Load(), res.BytesOut(), len(body))
		}
		sizes = append(sizes, res.BytesOut())
	}
	if sizes[0] != sizes[1] {
		t.Errorf("bytes out: loops %d, goroutines %d", sizes[0], sizes[1])
	}
}

// The event loops run as many VUs, requests and connections as the
// goroutines: the same counts for the same closed models.
func TestPathsAgree(t *testing.T) {
	t.Parallel()
	srv := sleepServer(t, time.Millisecond)
	for _, m := range []Model{Closed{VUs: 7, Total: 301}, Closed{VUs: 5, Iterations: 13}, Sequential{N: 17}, Closed{VUs: 3, Iterations: 4, Think: 5 * time.Millisecond}} {
		var counts, conns [2]int64
		for i, path := range paths {
			res, err := Run(context.Background(), Target{URL: srv.URL}, m, path.on(Options{}))
			if err != nil {
				t.Fatal(err)
			}
			counts[i], conns[i] = res.Count(), res.Connections
		}
		if counts[0] != counts[1] || conns[0] != conns[1] {
			t.Errorf("%v: loops %d requests on %d connections; goroutines %d on %d", m, counts[0], conns[0], counts[1], conns[1])
		}
	}
}

// MaxRequests and Total are exact however the requests are taken (the
// loops take them from the shared counters in batches while far from the
// bound): the run makes exactly that many.
func TestCountsExact(t *testing.T) {
	t.Parallel()
	srv := sleepServer(t, 0)
	for _, path := range paths {
		res, err := Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: 50, Duration: time.Minute}, path.on(Options{MaxRequests: 5003}))
		if err != nil || res.Count() != 5003 || !hasWarning(res, "MaxRequests=5003") {
			t.Errorf("%s: MaxRequests 5003: err %v, %d requests, warnings %q", path.name, err, res.Count(), res.Warnings)
		}
		res, err = Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: 50, Total: 5003}, path.on(Options{}))
		if err != nil || res.Count() != 5003 || hasWarning(res, "MaxRequests") {
			t.Errorf("%s: Total 5003: err %v, %d requests, warnings %q", path.name, err, res.Count(), res.Warnings)
		}
	}
}
