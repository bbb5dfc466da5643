package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// Source 001's exercise in a cell: a burst of 100 on /sync-sleep goes
// through AnyIO's 40 tokens in three waves, read from the trace.
func ExampleResult_TraceOf() {
	s, _ := bench.Presets("/sync-sleep")
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: s,
		Workload:   bench.Steps(bench.Sleep(200 * time.Millisecond)),
		Load:       load.Burst{N: 100},
	})
	if err != nil {
		panic(err)
	}
	tr, _ := res.TraceOf("/sync-sleep")
	fmt.Println("most running at once:", trace.MaxOverlap(tr.Events, trace.Handler))
	fmt.Println("waves:", trace.Waves(tr.Events, trace.Handler))
	fmt.Println(res.Trace.Columns())
	// Output:
	// most running at once: 40
	// waves: [40 40 20]
	// [strategy request worker thread phase start_ms end_ms]
}

// The Done-when facts at the source's own 1 s, through bench.Run: on
// /sync-sleep at most 40 requests run at any instant, in three waves; on
// /async-block no two handlers overlap; the trace frame has a row per
// interval and WriteTrace a complete event per row.
func TestTraceFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3 s burst")
	}
	t.Parallel()
	s, err := bench.Presets("/sync-sleep", "/async-block")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: s,
		Workloads: map[string]pymodel.Workload{
			"/sync-sleep":  bench.Steps(bench.Sleep(time.Second)),
			"/async-block": bench.Steps(bench.Sleep(20 * time.Millisecond)),
		},
		Load: load.Burst{N: 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	sync, ok := res.TraceOf("/sync-sleep")
	if !ok {
		t.Fatal("no trace of /sync-sleep")
	}
	if got := trace.MaxOverlap(sync.Events, trace.Handler); got != 40 {
		t.Errorf("/sync-sleep: most requests running at once = %d; want 40", got)
	}
	if got := trace.Waves(sync.Events, trace.Handler); !slices.Equal(got, []int{40, 40, 20}) {
		t.Errorf("/sync-sleep: waves %v; want [40 40 20]", got)
	}
	block, _ := res.TraceOf("/async-block")
	if got := trace.MaxOverlap(block.Events, trace.Handler); got != 1 {
		t.Errorf("/async-block: handlers running at once = %d; want 1", got)
	}
	if got := len(trace.Filter(block.Events, trace.Handler)); got != 100 {
		t.Errorf("/async-block: %d handlers; want 100", got)
	}
	if n := len(sync.Events) + len(block.Events); res.Trace.Len() != n {
		t.Errorf("trace frame has %d rows; want %d", res.Trace.Len(), n)
	}
	if got := res.Trace.Where("strategy", "/sync-sleep").Where("phase", "limiter_wait").Len(); got != 100 {
		t.Errorf("/sync-sleep: %d limiter_wait rows; want 100", got)
	}
	if csv := res.Trace.CSV(); !strings.HasPrefix(csv, "strategy,request,worker,thread,phase,start_ms,end_ms\n") {
		t.Errorf("trace CSV starts %q", csv[:min(len(csv), 80)])
	}
	if b, err := json.Marshal(res.Trace); err != nil || !strings.Contains(string(b), `"phase"`) {
		t.Errorf("trace JSON: %v", err)
	}
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := res.WriteTrace(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	x, io := 0, 0
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			x++
			if e.Name == "io" {
				io++
				if _, ok := e.Args["request"]; !ok {
					t.Fatalf("io event without args.request: %+v", e)
				}
			}
		}
	}
	if x != res.Trace.Len() || io != 200 {
		t.Errorf("Chrome trace: %d complete events (want %d), %d io (want 200)", x, res.Trace.Len(), io)
	}
}

// TraceFrame and EventsOf move a trace between its events and its frame,
// so the facts can be asked of any trace frame.
func ExampleTraceFrame() {
	evs := []trace.Event{
		{Request: 1, Thread: "gthread-1", Phase: trace.GIL, Start: 0, End: 5e6},
		{Request: 2, Thread: "gthread-2", Phase: trace.GIL, Start: 5e6, End: 10e6},
	}
	f := bench.TraceFrame("flask 1w x 2t", trace.Snapshot{Events: evs})
	fmt.Println(f.Len(), "rows;", f.Float("end_ms", 1), "ms")
	fmt.Println("GIL holders at once:", trace.MaxOverlapPerWorker(bench.EventsOf(f, "flask 1w x 2t"), trace.GIL))
	// Output:
	// 2 rows; 10 ms
	// GIL holders at once: 1
}
