package load_test

import (
	"bytes"
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

// Three agents each run one segment of the same model; their shares add
// up to the whole with no rounding drift.
func ExampleSegment() {
	m := load.Closed{VUs: 7, Total: 1000}
	var vus, requests int64
	for i := 0; i < 3; i++ {
		seg, err := load.NewSegment(i, 3) // conclab load --segment i/3
		if err != nil {
			panic(err)
		}
		fmt.Println(seg, "runs", seg.Scale(int64(m.VUs)), "VUs and", seg.Scale(int64(m.Total)), "requests")
		vus += seg.Scale(int64(m.VUs))
		requests += seg.Scale(int64(m.Total))
	}
	fmt.Println("together:", vus, "VUs,", requests, "requests")
	// Output:
	// 0/3 runs 2 VUs and 333 requests
	// 1/3 runs 2 VUs and 333 requests
	// 2/3 runs 3 VUs and 334 requests
	// together: 7 VUs, 1000 requests
}

// ParseSegment reads conclab's i/N and k6's FROM:TO forms.
func ExampleParseSegment() {
	for _, s := range []string{"1/4", "1/3:2/3", "0:0.5"} {
		seg, err := load.ParseSegment(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s is %.4f of the run\n", seg, seg.Fraction())
	}
	// Output:
	// 1/4 is 0.2500 of the run
	// 1/3 is 0.3333 of the run
	// 0/2 is 0.5000 of the run
}

// Three agents, each running one segment of the same closed model from a
// shared start and logging to an HdrHistogram interval log; merging the
// logs gives the whole run.
func ExampleOptions_segments() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()

	m := load.Closed{VUs: 7, Iterations: 10}
	start := time.Now().Add(100 * time.Millisecond)
	logs := make([]*bytes.Buffer, 3)
	var wg sync.WaitGroup
	for i := range logs {
		logs[i] = &bytes.Buffer{}
		seg, _ := load.NewSegment(i, len(logs))
		wg.Add(1)
		go func() { // on three machines, in real life
			defer wg.Done()
			if _, err := load.Run(context.Background(), load.Target{URL: srv.URL}, m,
				load.Options{Segment: seg, StartAt: start, Hlog: logs[i]}); err != nil {
				panic(err)
			}
		}()
	}
	wg.Wait()
	all, err := metrics.MergeHlogs(logs[0], logs[1], logs[2])
	if err != nil {
		panic(err)
	}
	fmt.Println(all.Labels["load"], "->", all.Count(), "requests,", all.Errors(), "errors")
	// Output:
	// 7 VUs 10 iterations -> 70 requests, 0 errors
}
