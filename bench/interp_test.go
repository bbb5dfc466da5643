package bench_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/internal/symbols"
)

// A custom step written in a notebook cell: a func literal interpreted by
// yaegi, called concurrently by the server's goroutines.
func TestCustomStepFromInterpreter(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{
		"github.com/conclab/conclab/bench/bench": {
			"Func":       reflect.ValueOf(bench.Func),
			"Steps":      reflect.ValueOf(bench.Steps),
			"Sleep":      reflect.ValueOf(bench.Sleep),
			"Presets":    reflect.ValueOf(bench.Presets),
			"Run":        reflect.ValueOf(bench.Run),
			"Experiment": reflect.ValueOf((*bench.Experiment)(nil)),
		},
		"github.com/conclab/conclab/bench/load/load": {
			"Burst": reflect.ValueOf((*load.Burst)(nil)),
		},
		"github.com/conclab/conclab/bench/pymodel/pymodel": {
			"Step": reflect.ValueOf((*pymodel.Step)(nil)),
		},
		"lab/lab": {
			"Count": reflect.ValueOf(func() { calls.Add(1) }),
		},
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := i.EvalWithContext(ctx, `import (
	"context"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"lab"
)`); err != nil {
		t.Fatal(err)
	}
	_, err := i.EvalWithContext(ctx, `
work := bench.Func("cell work", true, func(ctx context.Context) error {
	lab.Count()
	time.Sleep(10 * time.Millisecond)
	return nil
})
strategies, err := bench.Presets("sync", "asyncio", "goroutines")
if err != nil {
	panic(err)
}
res, err := bench.Run(context.Background(), bench.Experiment{
	Strategies: strategies,
	Workload:   bench.Steps(work, bench.Sleep(100*time.Millisecond)),
	Load:       load.Burst{N: 8},
})
if err != nil {
	panic(err)
}
rows := res.Summary.Len()
`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("rows")
	if err != nil {
		t.Fatal(err)
	}
	if v.Int() != 3 || calls.Load() != 24 {
		t.Errorf("rows = %v, calls = %d; want 3 and 24", v, calls.Load())
	}
}

// The cell-facing API through the interpreter's generated symbols: typed
// strategy families, an External server, Repeat, and a Progress callback
// written in the cell and called from the load generator's goroutine.
func TestExperimentFromInterpreter(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(symbols.Symbols); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := i.EvalWithContext(ctx, `import (
	"context"
	"sync"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)`); err != nil {
		t.Fatal(err)
	}
	_, err := i.EvalWithContext(ctx, `
mu := &sync.Mutex{}
done := []string{}
res, err := bench.Run(context.Background(), bench.Experiment{
	Strategies: []strategy.Strategy{
		strategy.Gunicorn{Threads: 2},
		strategy.Bounded{Name: "two at once", Limit: 2},
		strategy.External{Name: "mine", URL: "`+ts.URL+`"},
	},
	Workload: pymodel.Workload{Steps: []pymodel.Step{pymodel.Sleep(5 * time.Millisecond)}},
	Load:     load.Burst{N: 4},
	Repeat:   2,
	Progress: func(p bench.Progress) {
		if p.Done {
			mu.Lock()
			done = append(done, p.String())
			mu.Unlock()
		}
	},
})
if err != nil {
	panic(err)
}
rows := res.Summary.Len()
spread := res.Summary.Has("p95_ms_max")
`)
	if err != nil {
		t.Fatal(err)
	}
	for expr, want := range map[string]string{
		"rows":      "3",
		"spread":    "true",
		"len(done)": "3",
		"done[0]":   "[1/3] gunicorn 1w x 2t run 2/2",
		"done[2]":   "[3/3] mine run 2/2",
	} {
		v, err := i.Eval(expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(v); !strings.HasPrefix(got, want) {
			t.Errorf("%s = %q; want %q...", expr, got, want)
		}
	}
}
