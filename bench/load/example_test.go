package load_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

// Run a burst of 10 requests at once against a handler serialised by a
// mutex: the burst takes (at least) ten times the handler's 20 ms.
func ExampleRun() {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}))
	defer srv.Close()

	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, load.Burst{N: 10},
		load.Options{Strategy: "mutex", Workload: "sleep 20ms"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Labels["load"], res.Count(), "requests,", res.Errors(), "errors")
	fmt.Println("took at least 10 x 20 ms:", res.Elapsed >= 200*time.Millisecond)
	s := res.Summary()
	fmt.Println(s.Text("strategy", 0), s.Float("count", 0))
	// Output:
	// burst 10 10 requests, 0 errors
	// took at least 10 x 20 ms: true
	// mutex 10
}

// Closed VUs with think time, the shape of k6's constant-vus.
func ExampleClosed() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()

	m := load.Closed{VUs: 2, Iterations: 3, Think: 10 * time.Millisecond}
	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, m, load.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(m, "->", res.Count(), "requests")
	// Output:
	// 2 VUs 3 iterations think 10ms -> 6 requests
}

// An open model at a fixed arrival rate: latency is measured from each
// request's intended start, and the uncorrected latency is kept beside it.
func ExampleOpen() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()

	res, err := load.Run(context.Background(), load.Target{URL: srv.URL},
		load.Open{Rate: 100, Duration: 500 * time.Millisecond}, load.Options{})
	if err != nil {
		panic(err)
	}
	// 50 arrivals are due in 500 ms: each is sent, or counted as dropped
	// when the machine was too busy to send it before the end.
	s := res.Summary()
	fmt.Println(res.Count()+int64(s.Float("dropped", 0)), "arrivals")
	fmt.Println(s.Has("uncorrected_p99_ms"))
	// Output:
	// 50 arrivals
	// true
}

func ExampleConstantPacer() {
	p := load.ConstantPacer{PerSecond: 10, Duration: time.Second}
	wait, stop := p.Pace(250*time.Millisecond, 3) // hit 3 is due at 300 ms
	fmt.Println(wait, stop)
	_, stop = p.Pace(time.Second, 10) // hit 10 would be due at 1 s: the end
	fmt.Println(stop)
	// Output:
	// 50ms false
	// true
}

// Ramping arrival rate (k6's ramping-arrival-rate): from 0 to 200
// requests/s over 500 ms, then back to 0 over 500 ms: the integral of the
// rate, 100 arrivals.
func ExampleRampingRate() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()

	stages, err := load.ParseStages("500ms:200", "500ms:0") // conclab load --rate 0 --stage 500ms:200 --stage 500ms:0
	if err != nil {
		panic(err)
	}
	m := load.RampingRate{Start: 0, Stages: stages}
	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, m, load.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(m, "->", res.Count()+res.Dropped, "arrivals")
	fmt.Println(res.Series().Has("target_rps"))
	// Output:
	// open ramp 0/s→200/500ms→0/500ms -> 100 arrivals
	// true
}

// Ramping VUs (k6's ramping-vus): up to 4 VUs, held, down to 0; the
// series' vus column shows the level of each interval.
func ExampleRampingVUs() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()

	m := load.RampingVUs{Start: 0, Think: 10 * time.Millisecond, Stages: []load.Stage{
		{Duration: 200 * time.Millisecond, Target: 4},
		{Duration: 200 * time.Millisecond, Target: 4},
		{Duration: 200 * time.Millisecond, Target: 0},
	}}
	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, m, load.Options{Interval: 100 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	most := 0.0
	for _, v := range res.Series().Floats("vus") {
		most = max(most, v)
	}
	fmt.Println(m)
	fmt.Println("most VUs in an interval:", most)
	// Output:
	// ramping VUs 0→4/200ms→4/200ms→0/200ms think 10ms
	// most VUs in an interval: 4
}

// Thresholds pass or fail a run: against a server that takes 20 ms, p95
// under a second passes, p95 under 5 ms fails.
func ExampleOptions_thresholds() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
	}))
	defer srv.Close()

	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, load.Closed{VUs: 4, Total: 40},
		load.Options{Thresholds: []string{"p95<1s", "p95<5ms", "errors<1%"}})
	if err != nil {
		panic(err)
	}
	for _, tr := range res.Thresholds {
		fmt.Println(tr.Threshold, "passed:", tr.Passed)
	}
	fmt.Println("run passed:", res.Passed(), "· failed in the summary:", res.Summary().Float("thresholds_failed", 0))
	// Output:
	// p95<1s passed: true
	// p95<5ms passed: false
	// errors<1% passed: true
	// run passed: false · failed in the summary: 1
}

// OnInterval feeds a live view (a terminal panel, a notebook's live
// chart): each series interval as it closes, with the run so far.
func ExampleOptions_onInterval() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()

	var seen int64
	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, load.Open{Rate: 100, Duration: 500 * time.Millisecond},
		load.Options{Interval: 100 * time.Millisecond, OnInterval: func(c *metrics.Cut) {
			seen += c.Interval.N // c.Interval.Latency.P99, c.Interval.Gauge, c.Total ...
		}})
	if err != nil {
		panic(err)
	}
	fmt.Println(seen == res.Count(), res.Count()+res.Dropped)
	// Output:
	// true 50
}
