package strategy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// serveN sends n trivial requests through the server's handler in this
// process (no sockets: what is left is the server's own work, so tracing's
// share of it is the largest it can be), from 8 goroutines at once, and
// returns the time taken.
func serveN(tb testing.TB, s *Server, n int) time.Duration {
	h := http.HandlerFunc(s.serveGo)
	if s.rt != nil {
		h = s.servePython
	}
	var wg sync.WaitGroup
	per := n / 8
	begin := time.Now()
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
	return time.Since(begin)
}

func startServer(tb testing.TB, name string, traced bool) *Server {
	st, err := Preset(name)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(st, pymodel.Workload{Name: "none"})
	if err != nil {
		tb.Fatal(err)
	}
	if traced {
		s.TraceEvents = 1 << 30 // never full: every request pays
	}
	if err := s.Start(context.Background()); err != nil {
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
// median of the rounds' traced/untraced time ratios (1.05 = 5 % slower).
// Requests go through the handler in this process, without sockets, so
// the ratio is an upper bound of what a client over HTTP would see.
//
//	go test ./bench/strategy -run '^$' -bench TraceOverheadPaired
func BenchmarkTraceOverheadPaired(b *testing.B) {
	for _, name := range []string{"goroutines", "sync", "/async-ok"} {
		b.Run(name, func(b *testing.B) {
			off, on := startServer(b, name, false), startServer(b, name, true)
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
			b.ReportMetric(float64(20000*len(ratios))/offT.Seconds(), "off_req/s")
			b.ReportMetric(float64(20000*len(ratios))/onT.Seconds(), "on_req/s")
		})
	}
}
