package bench_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/display"
)

// recorder is a display.Publisher that keeps what a run published.
type recorder struct {
	mu       sync.Mutex
	displays []display.Data
	updates  []update
}

type update struct {
	id   string
	data display.Data
}

func (r *recorder) Display(d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.displays = append(r.displays, d)
	return nil
}

func (r *recorder) Update(id string, d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, update{id, d})
	return nil
}

func (r *recorder) Clear(bool) error { return nil }

func text(d display.Data) string { s, _ := d.Data[display.MIMETypeText].(string); return s }

// A run in a cell with a publisher shows one display and updates it in
// place: one line per strategy, every line done at the end.
func TestRunShowsLiveProgress(t *testing.T) {
	// Not parallel: it installs the process's display publisher.
	rec := &recorder{}
	defer display.SetPublisher(rec)()
	strategies, err := bench.Presets("goroutines", "serial")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(20 * time.Millisecond)),
		Load:       load.Closed{VUs: 2, Duration: 700 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.displays) != 1 {
		t.Fatalf("%d displays; want 1", len(rec.displays))
	}
	id := rec.displays[0].DisplayID()
	if id == "" {
		t.Fatal("the display has no display id: it cannot be updated in place")
	}
	if _, ok := rec.displays[0].Data[display.MIMETypeHTML]; !ok {
		t.Error("the display has no text/html")
	}
	first := strings.Split(text(rec.displays[0]), "\n")
	if len(first) != 2 || !strings.Contains(first[0], "[1/2] goroutines") || !strings.Contains(first[1], "[2/2] serial  waiting") {
		t.Errorf("first display %q; want a waiting line per strategy", first)
	}
	// Strategy 1 done, 2 done, the final state: at least three updates,
	// and more while the 700 ms runs go (every 250 ms at most).
	if len(rec.updates) < 5 {
		t.Errorf("%d updates; want at least 5", len(rec.updates))
	}
	sawRunning := false
	for i, u := range rec.updates {
		if u.id != id || u.data.DisplayID() != id {
			t.Fatalf("update %d has display id %q (bundle %q); want %q", i, u.id, u.data.DisplayID(), id)
		}
		lines := strings.Split(text(u.data), "\n")
		if len(lines) != 2 {
			t.Fatalf("update %d: %d lines %q; want one per strategy", i, len(lines), lines)
		}
		if strings.Contains(lines[0], " req/s") && !strings.HasSuffix(lines[0], "done") {
			sawRunning = true
		}
	}
	if !sawRunning {
		t.Error("no update showed strategy 1 running")
	}
	final := strings.Split(text(rec.updates[len(rec.updates)-1].data), "\n")
	for i, l := range final {
		if !strings.HasSuffix(l, "done") {
			t.Errorf("final line %d %q; want it done", i+1, l)
		}
		want := fmt.Sprintf("%.0f req ", res.Summary.Float("count", i))
		if !strings.Contains(l, want) {
			t.Errorf("final line %d %q; want the run's count %q", i+1, l, want)
		}
	}
}

// With Experiment.Progress set, the callback gets the progress and nothing
// is displayed.
func TestRunReportsProgress(t *testing.T) {
	// Not parallel: it installs the process's display publisher.
	rec := &recorder{}
	defer display.SetPublisher(rec)()
	strategies, err := bench.Presets("goroutines", "bounded 10")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []bench.Progress
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(20 * time.Millisecond)),
		Load:       load.Closed{VUs: 2, Duration: 500 * time.Millisecond},
		Repeat:     2,
		Progress: func(p bench.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.displays)+len(rec.updates) != 0 {
		t.Errorf("%d displays, %d updates; want none with Experiment.Progress set", len(rec.displays), len(rec.updates))
	}
	mu.Lock()
	defer mu.Unlock()
	var done []bench.Progress
	k, run := 1, 1
	for i, p := range got {
		if p.N != 2 || p.Repeats != 2 || p.K < k || (p.K == k && p.Repeat < run) {
			t.Fatalf("progress %d %+v after strategy %d run %d: out of order", i, p, k, run)
		}
		k, run = p.K, p.Repeat
		// A run's first report comes before its load starts: its planned
		// length may not be known yet.
		if p.Planned != 500*time.Millisecond && (p.Elapsed > 0 || p.Planned != 0) {
			t.Errorf("progress %d: planned %v; want 500ms", i, p.Planned)
		}
		if p.Done {
			done = append(done, p)
		}
	}
	if len(done) != 2 || done[0].K != 1 || done[1].K != 2 || got[len(got)-1] != done[1] {
		t.Fatalf("done reports %+v; want one per strategy, the last one last", done)
	}
	for i, p := range done {
		if p.Repeat != 2 || p.Requests == 0 || p.RPS <= 0 || p.Strategy != strategies[i].Label() {
			t.Errorf("done report %+v; want strategy %q's second run with its figures", p, strategies[i].Label())
		}
	}
	if s := done[1].String(); !strings.HasPrefix(s, "[2/2] bounded 10 run 2/2  ") || !strings.HasSuffix(s, " req/s  done") {
		t.Errorf("String() = %q", s)
	}
	if res.Summary.Len() != 2 || len(res.Loads) != 4 {
		t.Errorf("%d summary rows, %d runs; want 2 and 4", res.Summary.Len(), len(res.Loads))
	}
}

func ExampleProgress_String() {
	p := bench.Progress{Strategy: "/async-block", K: 2, N: 4, Repeat: 1, Repeats: 1,
		Elapsed: 3100 * time.Millisecond, Planned: 10 * time.Second, Requests: 120, RPS: 38}
	fmt.Println(p)
	p.Done = true
	fmt.Println(p)
	// Output:
	// [2/4] /async-block  3.1 s / 10 s  120 req  0 err  38 req/s
	// [2/4] /async-block  3.1 s / 10 s  120 req  0 err  38 req/s  done
}
