package bench_test

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/display"
)

// withPath is an External sent its own request path (the optional
// RequestPath interface bench.Run looks for).
type withPath struct {
	strategy.External
	path string
}

func (w withPath) RequestPath() string { return w.path }

// A server the user runs, side by side with a model strategy: the same
// load model and generator; the model's workload does not apply to it.
func TestRunExternalServer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	paths := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
		w.Write([]byte("ok\n"))
	}))
	defer ts.Close()
	goroutines, err := bench.Preset("goroutines")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: []strategy.Strategy{
			goroutines,
			strategy.External{Name: "mine", URL: ts.URL},
			withPath{strategy.External{Name: "mine /api", URL: ts.URL + "/"}, "/api"},
		},
		Workload: bench.Steps(bench.CPU(1000)),
		Load:     load.Sequential{N: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if paths["/work"] != 5 || paths["/api"] != 5 || len(paths) != 2 {
		t.Errorf("the external server saw %v; want 5 × /work and 5 × /api", paths)
	}
	s := res.Summary
	if got := s.Texts("strategy"); strings.Join(got, ",") != "goroutines,mine,mine /api" {
		t.Errorf("rows %v", got)
	}
	for row := 1; row < 3; row++ {
		if s.Float("count", row) != 5 || s.Float("errors", row) != 0 {
			t.Errorf("row %d: count %v errors %v; want 5 and 0", row, s.Float("count", row), s.Float("errors", row))
		}
		for _, c := range strategy.ServerColumns {
			if v := s.Float(c, row); !math.IsNaN(v) {
				t.Errorf("row %d: %s = %v; want NaN (an external server measures nothing)", row, c, v)
			}
		}
	}
	if v := s.Float("cpu_s", 0); math.IsNaN(v) {
		t.Error("the model row's cpu_s is NaN")
	}
}

// A workload only needs to be valid for the strategies that run it.
func TestRunExternalIgnoresWorkload(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	bad := bench.Steps(bench.CPU(0))
	e := bench.Experiment{Strategies: []strategy.Strategy{strategy.External{URL: ts.URL}}, Workload: bad, Load: load.Burst{N: 2}}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatalf("Run with an invalid workload no strategy runs: %v", err)
	}
	if res.Summary.Float("count", 0) != 2 {
		t.Errorf("count %v; want 2", res.Summary.Float("count", 0))
	}
	e.Strategies = append(e.Strategies, strategy.Goroutines{})
	if _, err := bench.Run(context.Background(), e); err == nil || !strings.Contains(err.Error(), `strategy "goroutines": workload`) {
		t.Errorf("Run with an invalid workload goroutines runs: %v", err)
	}
}

// A strategy that fails to start fails the run, naming it; the live
// display is left saying which failed and which did not run.
func TestRunFailedStartShownInDisplay(t *testing.T) {
	// Not parallel: it installs the process's display publisher.
	rec := &recorder{}
	defer display.SetPublisher(rec)()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	_, err = bench.Run(context.Background(), bench.Experiment{
		Strategies: []strategy.Strategy{strategy.External{Name: "gone", URL: gone}, strategy.Goroutines{}},
		Load:       load.Burst{N: 1},
	})
	if err == nil || !strings.Contains(err.Error(), `strategy "gone"`) || !strings.Contains(err.Error(), "nothing answers") {
		t.Fatalf("Run = %v; want strategy \"gone\" failing to start", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.displays) != 1 || len(rec.updates) == 0 {
		t.Fatalf("%d displays, %d updates; want 1 display and its final update", len(rec.displays), len(rec.updates))
	}
	final := strings.Split(text(rec.updates[len(rec.updates)-1].data), "\n")
	if len(final) != 2 || !strings.Contains(final[0], "failed: ") || !strings.HasSuffix(final[1], "goroutines  not run") {
		t.Errorf("final display %q; want gone failed, goroutines not run", final)
	}
}
