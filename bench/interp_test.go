package bench_test

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
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
