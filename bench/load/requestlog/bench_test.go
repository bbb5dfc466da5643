package requestlog

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/load"
)

// BenchmarkRawResults streams 500,000 requests' rows as CSV (to
// io.Discard) and reports the heap's peak growth during the run, which
// must stay bounded (under 50 MB) whatever the run length: rows are
// formatted as they come, never held.
//
//	go test ./bench/load/requestlog -run '^$' -bench RawResults -benchtime 1x
func BenchmarkRawResults(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(ln)
	defer srv.Close()
	n := 500_000
	if testing.Short() {
		n = 50_000
	}
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		peak := uint64(0)
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			t := time.NewTicker(50 * time.Millisecond)
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
		w := NewCSV(io.Discard, Options{})
		res, err := load.Run(context.Background(), load.Target{URL: "http://" + ln.Addr().String() + "/"}, load.Closed{VUs: 50, Total: n},
			load.Options{Requests: w.Write})
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		if res.Count() != int64(n) {
			b.Fatalf("count %d; want %d", res.Count(), n)
		}
		growth := (float64(peak) - float64(before.HeapInuse)) / (1 << 20)
		b.ReportMetric(growth, "MB-peak-growth")
		b.ReportMetric(res.RPS(), "req/s")
		if growth > 50 {
			b.Errorf("peak heap growth %.1f MB; want < 50 MB", growth)
		}
	}
}
