package charts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
)

// LiveRun draws while the load runs, in one output updated in place at
// most twice a second, and ends with Timeline of the run's series: the
// same MIME payload, point for point.
func TestLiveRunUpdatesInPlaceAndEndsWithTimeline(t *testing.T) {
	rec := &recorder{}
	defer display.SetPublisher(rec)()
	strategies, err := bench.Presets("goroutines", "serial")
	if err != nil {
		t.Fatal(err)
	}
	const run = 1500 * time.Millisecond
	t0 := time.Now()
	res, err := charts.LiveRun(context.Background(), bench.Experiment{
		Name: "live", Strategies: strategies,
		Workload: bench.Steps(bench.Sleep(5 * time.Millisecond)),
		Load:     load.Closed{VUs: 2, Duration: run},
	})
	elapsed := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// bench.Run's progress line is the other updatable output.
	var chartShown []display.Data
	for _, d := range rec.shown {
		if _, ok := d.Data[charts.MIMEType]; ok {
			chartShown = append(chartShown, d)
		}
	}
	if len(chartShown) != 1 {
		t.Fatalf("%d chart outputs displayed; want 1 (then updated in place)", len(chartShown))
	}
	id := chartShown[0].DisplayID()
	var versions []display.Data
	versions = append(versions, chartShown[0])
	for _, d := range rec.updated {
		if d.DisplayID() == id {
			versions = append(versions, d)
		}
	}
	// Two strategies of 1.5 s each: at most one redraw every 500 ms, and
	// the final chart; at least one redraw while the load ran.
	most := int(elapsed/charts.DefaultLiveEvery) + 2
	if len(versions) < 3 || len(versions) > most {
		t.Errorf("%d versions of the chart in %v; want 3 … %d (≤ 2 a second, and the final one)", len(versions), elapsed, most)
	}
	final := versions[len(versions)-1]
	want := charts.Timeline(res.Series).Render()
	if got, wantP := fmt.Sprint(final.Data[charts.MIMEType]), fmt.Sprint(want.Data[charts.MIMEType]); got != wantP {
		t.Errorf("the final chart's payload differs from Timeline(res.Series):\n got %.300s\nwant %.300s", got, wantP)
	}
	if !strings.Contains(fmt.Sprint(final.Data[display.MIMETypeText]), "Throughput over time") {
		t.Errorf("the final chart's text %q", final.Data[display.MIMETypeText])
	}
	// A redraw during the run showed both lines' names as the final does,
	// and fewer points than the end.
	var mid struct {
		Charts []struct{ Option string } `json:"charts"`
	}
	if err := json.Unmarshal(versions[1].Data[charts.MIMEType].(json.RawMessage), &mid); err != nil {
		t.Fatal(err)
	}
	if len(mid.Charts) != 2 || !strings.Contains(mid.Charts[0].Option, `"name":"goroutines"`) {
		t.Errorf("a live version: %d charts, first %.200s", len(mid.Charts), mid.Charts[0].Option)
	}
}

// Without a publisher LiveRun is bench.Run.
func ExampleLiveRun() {
	strategies, _ := bench.Presets("goroutines")
	res, err := charts.LiveRun(context.Background(), bench.Experiment{Strategies: strategies,
		Workload: bench.Steps(bench.Sleep(time.Millisecond)), Load: load.Burst{N: 10}})
	fmt.Println(res.Summary.Float("count", 0), err)
	// Output:
	// 10 <nil>
}

// LiveTimeline with the load generator directly: its hooks in
// load.Options, Finish with the result's series.
func ExampleLiveTimeline() {
	srv := newSleepServer()
	defer srv.Close()
	lt := charts.NewLiveTimeline()
	opts := load.Options{Strategy: "my service"}
	lt.Watch(&opts)
	res, err := load.Run(context.Background(), load.Target{URL: srv.URL}, load.Burst{N: 20}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Count(), lt.Finish(res.Series()) != nil) // no display publisher here: Finish says so
	// Output:
	// 20 true
}

// newSleepServer is a service on loopback answering after 2 ms.
func newSleepServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
	}))
}
