package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// BenchmarkMillionRequests sends 1,000,000 requests (Closed, 50 VUs) to a
// trivial keep-alive server and reports the generator's heap growth: the
// live heap after the run minus before (MB), which must stay under 50 MB
// whatever the run length, and the peak sampled during the run.
//
//	go test ./bench/load -run '^$' -bench MillionRequests -benchtime 1x
func BenchmarkMillionRequests(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"
	n := 1_000_000
	if testing.Short() {
		n = 50_000
	}
	b.ReportAllocs()
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		peak := uint64(0)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			var ms runtime.MemStats
			for {
				select {
				case <-t.C:
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				case <-stop:
					return
				}
			}
		}()
		res, err := Run(context.Background(), Target{URL: url}, Closed{VUs: 50, Total: n}, Options{})
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		if res.Count() != int64(n) {
			b.Fatalf("count = %d; want %d", res.Count(), n)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		growth := (float64(after.HeapInuse) - float64(before.HeapInuse)) / (1 << 20)
		peakGrowth := (float64(peak) - float64(before.HeapInuse)) / (1 << 20)
		b.ReportMetric(growth, "MB-retained")
		b.ReportMetric(peakGrowth, "MB-peak-growth")
		b.ReportMetric(res.RPS(), "req/s")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/req-total")
		if peakGrowth > 50 {
			b.Errorf("peak heap growth %.1f MB; want < 50 MB", peakGrowth)
		}
	}
}

// rawServer answers every request (GET, no body) with a fixed response
// without allocating, so a benchmark's allocations are the generator's.
func rawServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				out := make([]byte, 0, 64<<10)
				match := 0 // progress through "\r\n\r\n"
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					out = out[:0]
					for _, ch := range buf[:n] {
						switch {
						case ch == "\r\n\r\n"[match]:
							match++
						case ch == '\r':
							match = 1
						default:
							match = 0
						}
						if match == 4 {
							out = append(out, resp...)
							match = 0
						}
					}
					if _, err := c.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

// BenchmarkGenerator measures the generator alone (a raw, allocation-free
// server): allocations per request are the generator's hot path.
func BenchmarkGenerator(b *testing.B) {
	url := rawServer(b)
	for _, vus := range []int{1, 50} {
		b.Run(fmt.Sprintf("vus=%d", vus), func(b *testing.B) {
			b.ReportAllocs()
			res, err := Run(context.Background(), Target{URL: url}, Closed{VUs: vus, Total: b.N}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if res.Count() != int64(b.N) {
				b.Fatalf("count %d; want %d", res.Count(), b.N)
			}
			b.ReportMetric(res.RPS(), "req/s")
		})
	}
}
