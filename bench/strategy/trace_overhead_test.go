package strategy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// cpuNow is the process's CPU time so far (user + system).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serveN sends n trivial requests through the server's handler in this
// process (no sockets: what is left is the server's own work, so tracing's
// share of it is the largest it can be), from 8 goroutines at once, and
// returns the CPU time the process spent meanwhile (on a shared machine a
// steadier measure of the work than the wall clock).
func serveN(tb testing.TB, s *server, n int) time.Duration {
	h := http.HandlerFunc(s.serveGo)
	if s.rt != nil {
		h = s.servePython
	}
	var wg sync.WaitGroup
	per := n / 8
	begin := cpuNow()
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				w := httptest.NewRecorder()
				h(w, httptest.NewRequest("GET", "/work", nil))
				if w.Code != 200 {
					tb.Errorf("status %d: %s", w.Code, w.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
	return cpuNow() - begin
}

// serveHTTP is serveN over loopback HTTP (keep-alive connections, 8 at
// once): the CPU time includes the client's and the sockets', as a
// throughput-bound machine pays them.
func serveHTTP(tb testing.TB, c *http.Client, s *server, n int) time.Duration {
	var wg sync.WaitGroup
	per := n / 8
	begin := cpuNow()
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				resp, err := c.Get(s.URL() + "/work")
				if err != nil {
					tb.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	return cpuNow() - begin
}

func startServer(tb testing.TB, name string, traced bool) *server {
	st, err := Preset(name)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := newServer(st.(interface{ spec() spec }).spec(), pymodel.Workload{Name: "none"})
	if err != nil {
		tb.Fatal(err)
	}
	if traced {
		s.traceEvents = 1 << 30 // never full: every request pays
	}
	if err := s.start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkTraceOverheadPaired measures tracing's throughput cost side by
// side: for each strategy (goroutines; the uvicorn model with a def handler,
// "sync", and an async def one, "/async-ok"), a traced and an untraced
// server take rounds of 2,000 trivial requests in turn, ten rounds each, so
// drift on a shared machine hits both alike; the metric on_over_off is the
// median of the rounds' traced/untraced ratios of CPU time (1.05 = 5 % more
// CPU per request, 5 % less throughput when the CPUs are the limit).
// Each runs twice: "in-process" sends requests through the handler without
// sockets (the ratio's upper bound: only the server's own work is
// counted), "http" over loopback with a keep-alive client in this process.
//
//	go test ./bench/strategy -run '^$' -bench TraceOverheadPaired
func BenchmarkTraceOverheadPaired(b *testing.B) {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer c.CloseIdleConnections()
	for _, name := range []string{"goroutines", "sync", "/async-ok"} {
		for _, via := range []string{"in-process", "http"} {
			b.Run(name+"/"+via, func(b *testing.B) {
				off, on := startServer(b, name, false), startServer(b, name, true)
				serveN := serveN
				if via == "http" {
					serveN = func(tb testing.TB, s *server, n int) time.Duration { return serveHTTP(tb, c, s, n) }
				}
				serveN(b, off, 800) // warm both
				serveN(b, on, 800)
				b.ReportAllocs()
				var ratios []float64
				var offT, onT time.Duration
				for b.Loop() {
					var r []float64
					for round := 0; round < 10; round++ {
						a := serveN(b, off, 2000)
						c := serveN(b, on, 2000)
						offT, onT = offT+a, onT+c
						r = append(r, float64(c)/float64(a))
					}
					sort.Float64s(r)
					ratios = append(ratios, (r[4]+r[5])/2)
				}
				sort.Float64s(ratios)
				med := ratios[len(ratios)/2]
				b.ReportMetric(med, "on_over_off")
				b.ReportMetric(float64(20000*len(ratios))/offT.Seconds(), "off_req/cpu-s")
				b.ReportMetric(float64(20000*len(ratios))/onT.Seconds(), "on_req/cpu-s")
			})
		}
	}
}
