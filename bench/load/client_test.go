package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// parse reads one response from data, fed in pieces of at most step
// bytes (0: whole), then the end of the connection.
func parse(data string, head bool, step int) (status int, keep bool, n int64, err error) {
	p := respParser{head: head}
	p.reset()
	b := []byte(data)
	for len(b) > 0 {
		k := len(b)
		if step > 0 {
			k = min(k, step)
		}
		used, done, err := p.feed(b[:k])
		if err != nil {
			return 0, false, p.n, err
		}
		if used > k || used < 0 {
			return 0, false, p.n, fmt.Errorf("consumed %d of %d", used, k)
		}
		if done {
			return p.status, p.keep && used == k && len(b) == k, p.n, nil
		}
		b = b[k:]
	}
	done, err := p.eof()
	if !done {
		return 0, false, p.n, err
	}
	return p.status, false, p.n, nil
}

func TestReadResponse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		head     bool
		status   int
		keep     bool
		bad      bool // a protocol error
		eof      bool // a truncated response
	}{
		{name: "length", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", status: 200, keep: true},
		{name: "http/1.0", in: "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200, keep: false},
		{name: "1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", status: 200, keep: true},
		{name: "close", in: "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno", status: 503, keep: false},
		{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nTrailer: x\r\n\r\n", status: 200, keep: true},
		{name: "until close", in: "HTTP/1.1 200 OK\r\n\r\nbody until EOF", status: 200, keep: false},
		{name: "interim 100", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", status: 201, keep: true},
		{name: "head", in: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", head: true, status: 200, keep: true},
		{name: "101", in: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", status: 101, keep: false},
		{name: "204", in: "HTTP/1.1 204 No Content\r\n\r\n", status: 204, keep: true},
		{name: "LF only", in: "HTTP/1.1 404 Not Found\nContent-Length: 1\n\nx", status: 404, keep: true},
		{name: "garbage", in: "SSH-2.0-OpenSSH\r\n", bad: true},
		{name: "bad status", in: "HTTP/1.1 2OO OK\r\n\r\n", bad: true},
		{name: "bad header", in: "HTTP/1.1 200 OK\r\nnocolon\r\n\r\n", bad: true},
		{name: "bad length", in: "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", bad: true},
		{name: "bad chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", bad: true},
		{name: "chunk without CRLF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n", bad: true},
		{name: "short body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", eof: true},
		{name: "short headers", in: "HTTP/1.1 200 OK\r\nContent-Le", eof: true},
		{name: "empty", in: "", eof: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, keep, n, err := parse(tc.in, tc.head, 0)
			// The same, fed a byte at a time and in pieces of 7.
			for _, step := range []int{1, 7} {
				st2, keep2, n2, err2 := parse(tc.in, tc.head, step)
				if st2 != st || keep2 != keep || n2 != n || (err == nil) != (err2 == nil) {
					t.Errorf("fed %d at a time: %d %v %d %v; whole: %d %v %d %v", step, st2, keep2, n2, err2, st, keep, n, err)
				}
			}
			var pe *protoError
			switch {
			case tc.bad:
				if !errors.As(err, &pe) {
					t.Errorf("err = %v; want a malformed-response error", err)
				}
			case tc.eof:
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("err = %v; want EOF", err)
				}
			default:
				if err != nil || st != tc.status || keep != tc.keep || n != int64(len(tc.in)) {
					t.Errorf("got status %d keep %v read %d err %v; want %d %v %d nil", st, keep, n, err, tc.status, tc.keep, len(tc.in))
				}
			}
		})
	}
}

// FuzzReadResponse: any bytes from a server give a status or an error,
// never a panic, never a read count beyond the input, and the same answer
// however the bytes are split into reads.
func FuzzReadResponse(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false)
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false)
	f.Add("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", true)
	f.Fuzz(func(t *testing.T, in string, head bool) {
		st, keep, n, err := parse(in, head, 0)
		if n > int64(len(in)) || n < 0 {
			t.Fatalf("read %d of %d bytes", n, len(in))
		}
		for _, step := range []int{1, 3} {
			st2, keep2, n2, err2 := parse(in, head, step)
			if st2 != st || keep2 != keep || n2 != n || (err == nil) != (err2 == nil) {
				t.Fatalf("fed %d at a time: %d %v %d %v; whole: %d %v %d %v", step, st2, keep2, n2, err2, st, keep, n, err)
			}
		}
	})
}

// A server answering each request twice (in one write) leaves bytes behind:
// the next request must not read them as its answer but start afresh.
func TestOutOfStepConnection(t *testing.T) {
	t.Parallel()
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
				buf := make([]byte, 4096)
				for {
					c.SetReadDeadline(time.Now().Add(2 * time.Second))
					if _, err := c.Read(buf); err != nil {
						return
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 500 Stale\r\nContent-Length: 0\r\n\r\n")
				}
			}()
		}
	}()
	for _, path := range paths {
		conns.Store(0)
		res, err := Run(context.Background(), Target{URL: "http://" + ln.Addr().String() + "/"}, Sequential{N: 3}, path.on(Options{Timeout: time.Second}))
		if err != nil || res.Outcomes(metrics.OK) != 3 || conns.Load() != 3 {
			t.Errorf("%s: err=%v ok=%d conns=%d; want 3 OK answers on 3 connections", path.name, err, res.Outcomes(metrics.OK), conns.Load())
		}
	}
}

// The request's head is the request line, Host and the target's own
// headers: no User-Agent unless the target sets one (each header is work
// for the server on every request).
func TestRequestHeadOnlyWhatWasAsked(t *testing.T) {
	t.Parallel()
	type seen struct {
		agents []string
		host   string
		extra  string
	}
	got := make(chan seen, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Header.Values("User-Agent"), r.Host, r.Header.Get("X-Extra")}
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, path := range paths {
		for _, tc := range []struct {
			header http.Header
			want   seen
		}{
			{nil, seen{nil, host, ""}},
			{http.Header{"User-Agent": {"mine/1"}, "X-Extra": {"x"}}, seen{[]string{"mine/1"}, host, "x"}},
		} {
			res, err := Run(context.Background(), Target{URL: srv.URL, Header: tc.header}, Sequential{N: 1}, path.on(Options{}))
			if err != nil || res.Count() != 1 || res.Errors() != 0 {
				t.Fatalf("%s: err=%v count=%d errors=%d", path.name, err, res.Count(), res.Errors())
			}
			s := <-got
			if !slices.Equal(s.agents, tc.want.agents) || s.host != tc.want.host || s.extra != tc.want.extra {
				t.Errorf("%s, header %v: server saw User-Agent %q, Host %q, X-Extra %q; want %q, %q, %q",
					path.name, tc.header, s.agents, s.host, s.extra, tc.want.agents, tc.want.host, tc.want.extra)
			}
		}
	}
}
