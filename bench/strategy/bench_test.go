package strategy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// hammer sends b.N GETs to url from parallel keep-alive clients and
// returns the requests per second.
func hammer(b *testing.B, url string) float64 {
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Get(url)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	rps := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rps, "req/s")
	return rps
}

// BenchmarkTrivialHandler compares the goroutine strategy with a trivial
// (empty) workload against a bare net/http server, side by side; the
// strategy must reach 0.9x the bare server's req/s.
func BenchmarkTrivialHandler(b *testing.B) {
	var bare, gor float64
	b.Run("bare-net-http", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "ok\n")
		}))
		defer srv.Close()
		bare = hammer(b, srv.URL+"/work")
	})
	b.Run("goroutines", func(b *testing.B) {
		srv := start(b, preset(b, "goroutines"), pymodel.Workload{Name: "none"})
		gor = hammer(b, srv.URL()+"/work")
	})
	if bare > 0 && gor > 0 {
		r := gor / bare
		b.Logf("goroutines %.0f req/s, bare net/http %.0f req/s: %.2fx", gor, bare, r)
		if r < 0.9 {
			b.Errorf("goroutine strategy reached %.2fx of bare net/http; want ≥ 0.9x", r)
		}
	}
}
