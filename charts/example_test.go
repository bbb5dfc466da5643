package charts_test

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
)

func ExampleThroughput() {
	f := frame.New("sleep 100 ms")
	f.MustAppend(frame.Row{"strategy": "sync", "rps": 9.8})
	f.MustAppend(frame.Row{"strategy": "ThreadPool", "rps": 96.1})
	c := charts.Throughput(f)
	fmt.Println(c.Err())
	fmt.Println(c)
	// Output:
	// <nil>
	// chart "Throughput · sleep 100 ms": 1 series
}

// A chart's bundle: its own MIME type for conclab's JupyterLab extension,
// HTML with its script for nbconvert and other pages, a static SVG for
// viewers that run no scripts, and a line of text.
func ExampleChart_Render() {
	f := frame.New("sleep 100 ms")
	f.MustAppend(frame.Row{"strategy": "sync", "rps": 9.8})
	f.MustAppend(frame.Row{"strategy": "ThreadPool", "rps": 96.1})
	d := charts.Throughput(f).Render()
	mimes := slices.Sorted(maps.Keys(d.Data))
	fmt.Println(strings.Join(mimes, "\n"))
	fmt.Println(charts.MIMEType == mimes[0])
	// Output:
	// application/vnd.conclab.echarts.v1+json
	// image/svg+xml
	// text/html
	// text/plain
	// true
}

func ExampleLatency() {
	f := frame.New("")
	f.MustAppend(frame.Row{"strategy": "sync", "avg_ms": 510.0, "med_ms": 505.0, "p95_ms": 980.0, "p99_ms": 1010.0})
	f.MustAppend(frame.Row{"strategy": "asyncio", "avg_ms": 500.0, "med_ms": 498.0, "p95_ms": 950.0, "p99_ms": math.NaN()})
	c := charts.Latency(f).LogY().Title("Latency, log axis")
	fmt.Println(c.SeriesNames(), c.Notes())
	// Output:
	// [sync asyncio] [1 value(s) missing or not finite (NaN/Inf) left out]
}

func ExampleCDF() {
	f := frame.New("distribution")
	for _, p := range []float64{50, 90, 99, 100} {
		f.MustAppend(frame.Row{"strategy": "goroutines", "percentile": p, "latency_ms": 100 + p/10})
	}
	fmt.Println(charts.CDF(f).LogX().Err())
	fmt.Println(charts.CDF(frame.New("empty")).Err())
	// Output:
	// <nil>
	// charts.CDF: frame "empty" has no rows
}

func ExampleNewReport() {
	f := frame.New("summary")
	f.MustAppend(frame.Row{"strategy": "sync", "rps": 9.8, "queue_wait_ms": 400.0, "service_ms": 100.0})
	f.MustAppend(frame.Row{"strategy": "goroutines", "rps": 970.0, "queue_wait_ms": 0.5, "service_ms": 100.0})
	path := filepath.Join(os.TempDir(), "conclab-example-report.html")
	defer os.Remove(path)
	err := charts.NewReport("Sleep 100 ms").
		Add("Throughput per strategy, then where the time goes.", f, charts.Throughput(f), charts.Breakdown(f)).
		WriteFile(path)
	b, _ := os.ReadFile(path)
	fmt.Println(err, strings.Count(string(b), `data-conclab-chart="1"`), "charts")
	// Output:
	// <nil> 2 charts
}

func ExampleColorOf() {
	fmt.Println(charts.ColorOf("asyncio") == charts.ColorOf("asyncio"))
	charts.SetColor("reference", "#333333")
	fmt.Println(charts.ColorOf("reference"))
	// Output:
	// true
	// #333333
}
