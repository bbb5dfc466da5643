package load_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/load"
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
	fmt.Println(res.Count(), "requests")
	fmt.Println(res.Summary().Has("uncorrected_p99_ms"))
	// Output:
	// 50 requests
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
