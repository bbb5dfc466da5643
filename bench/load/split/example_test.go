package split_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/load/split"
	"github.com/conclab/conclab/bench/metrics"
)

// Three agents each run one segment of the same model; their shares add
// up to the whole with no rounding drift.
func ExampleSegment() {
	m := load.Closed{VUs: 7, Total: 1000}
	var vus, requests int64
	for i := 0; i < 3; i++ {
		seg, err := split.NewSegment(i, 3) // conclab load --segment i/3
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
		seg, err := split.ParseSegment(s)
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
func ExampleRun() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()

	m := load.Closed{VUs: 7, Iterations: 10}
	start := time.Now().Add(100 * time.Millisecond)
	logs := make([]*bytes.Buffer, 3)
	var wg sync.WaitGroup
	for i := range logs {
		logs[i] = &bytes.Buffer{}
		seg, _ := split.NewSegment(i, len(logs))
		wg.Add(1)
		go func() { // on three machines, in real life
			defer wg.Done()
			if _, err := split.Run(context.Background(), load.Target{URL: srv.URL}, m,
				load.Options{StartAt: start}, split.Agent{Segment: seg, Log: logs[i]}); err != nil {
				panic(err)
			}
		}()
	}
	wg.Wait()
	all, err := split.Merge(logs[0], logs[1], logs[2])
	if err != nil {
		panic(err)
	}
	fmt.Println(all.Labels["load"], "->", all.Count(), "requests,", all.Errors(), "errors")
	// Output:
	// 7 VUs 10 iterations -> 70 requests, 0 errors
}

// Two agents log their runs as HdrHistogram interval logs; merging the
// logs gives the summary of both together: counts added exactly,
// percentiles from the merged histogram.
func ExampleMerge() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	agent := func(latency time.Duration, segment string) *bytes.Buffer {
		var log bytes.Buffer
		hw := split.NewHlogWriter(&log, split.HlogHeader{Segment: segment, Whole: "2 agents"})
		rec, _ := metrics.NewRecorder(start, metrics.Options{OnCut: hw.Interval})
		for i := 0; i < 100; i++ {
			rec.Record(i, &metrics.Sample{Outcome: metrics.OK, Latency: latency})
		}
		res := rec.Finish(start.Add(time.Second), 1, nil)
		if err := hw.End(res); err != nil {
			panic(err)
		}
		return &log
	}
	res, err := split.Merge(agent(10*time.Millisecond, "0/2"), agent(30*time.Millisecond, "1/2"))
	if err != nil {
		panic(err)
	}
	sum, _ := res.Summary().Select("load", "count", "rps", "avg_ms", "p99_ms")
	fmt.Print(sum)
	// Output:
	// summary
	// load      count  rps  avg_ms  p99_ms
	// 2 agents    200  200      20      30
}
