package charts_test

import (
	"math"

	"github.com/conclab/conclab/bench/frame"
)

// Test frames follow bench/frame's column convention; figures are shaped like
// the sources' (sync vs asyncio vs thread pool under a blocking handler).

var strategies = []string{"sync", "asyncio", "ThreadPool", "ProcessPool", "goroutines"}

func summaryFrame() *frame.Frame {
	f := frame.New("sleep 100 ms, 100 requests")
	rps := []float64{9.7, 9.9, 95.2, 38.5, 980}
	avg := []float64{5100, 5050, 520, 1300, 102}
	for i, s := range strategies {
		f.MustAppend(frame.Row{
			"strategy": s, "workload": "sleep", "count": 100, "errors": 0,
			"elapsed_s": 100 / rps[i], "rps": rps[i],
			"avg_ms": avg[i], "med_ms": avg[i] * 0.98, "p95_ms": avg[i] * 1.8, "p99_ms": avg[i] * 1.95,
			"max_ms":        avg[i] * 2,
			"queue_wait_ms": avg[i] * 0.6, "gil_wait_ms": avg[i] * 0.1 * float64(i%3), "service_ms": avg[i] * 0.3,
		})
	}
	return f
}

func seriesFrame() *frame.Frame {
	f := frame.New("per-second series")
	for si, s := range strategies[:4] {
		for t := 0; t < 20; t++ {
			base := []float64{10, 11, 95, 40}[si]
			f.MustAppend(frame.Row{
				"strategy": s, "t_s": float64(t), "interval_s": 1.0,
				"rps":    base * (1 + 0.1*math.Sin(float64(t+si))),
				"p50_ms": 1000 / base * 10, "p95_ms": 1800 / base * 10 * (1 + 0.05*math.Cos(float64(t))),
				"p99_ms": 2000 / base * 10,
			})
		}
	}
	return f
}

func distributionFrame() *frame.Frame {
	f := frame.New("latency distribution")
	for si, s := range strategies[:4] {
		scale := []float64{5000, 5000, 500, 1300}[si]
		for _, p := range []float64{0, 10, 25, 50, 75, 90, 95, 99, 99.9, 100} {
			f.MustAppend(frame.Row{"strategy": s, "percentile": p, "latency_ms": scale * (0.2 + p/100)})
		}
	}
	return f
}

func sweepFrame() *frame.Frame {
	f := frame.New("concurrency sweep")
	for si, s := range strategies[:3] {
		for _, c := range []float64{1, 2, 4, 8, 16, 32, 64} {
			rps := []float64{10, 10, math.Min(c*10, 400)}[si]
			f.MustAppend(frame.Row{"strategy": s, "concurrency": c, "rps": rps, "p95_ms": c * 1000 / rps})
		}
	}
	return f
}

func sourceFrame() *frame.Frame {
	f := frame.New("source table")
	for i, s := range strategies[:3] {
		f.MustAppend(frame.Row{"strategy": s, "rps": []float64{10.1, 10.0, 98}[i]})
	}
	return f
}

// agreementFrame is shaped like bench/cpython's Agreement output.
func agreementFrame() *frame.Frame {
	f := frame.New("model vs real")
	f.MustAppend(frame.Row{"strategy": "/sync-sleep", "load": "burst 10", "metric": "elapsed_s", "model": 1.0, "real": 1.04, "agree": 1.0, "verdict": "agrees"})
	f.MustAppend(frame.Row{"strategy": "/async-block", "load": "burst 10", "metric": "elapsed_s", "model": 10.0, "real": 14.0, "agree": 0.0, "verdict": "disagrees"})
	return f
}
