package bench_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/trace"
)

// The trace's facts of one strategy: ten def handlers on AnyIO's 40
// tokens all run at once, their sleeps in one wave, the loop never blocked.
func ExampleResult_Waves() {
	strategies, err := bench.Presets("/sync-sleep")
	if err != nil {
		panic(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(20 * time.Millisecond)),
		Load:       load.Burst{N: 10},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("count:", res.Value("/sync-sleep", "count"))
	fmt.Println("at once:", res.MaxOverlap("/sync-sleep", trace.Handler))
	fmt.Println("waves:", res.Waves("/sync-sleep", trace.IO))
	in, all := res.Within("/sync-sleep", trace.IO, trace.LoopBlocked)
	fmt.Printf("sleeps inside a blocked loop: %d of %d\n", in, all)
	// Output:
	// count: 10
	// at once: 10
	// waves: [10]
	// sleeps inside a blocked loop: 0 of 10
}

func TestResultFactsUnknownStrategy(t *testing.T) {
	t.Parallel()
	strategies, err := bench.Presets("serial")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(time.Millisecond)),
		Load:       load.Burst{N: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Waves("serial", trace.Handler); fmt.Sprint(got) != "[1 1 1]" {
		t.Errorf("Waves(serial, handler) = %v; want [1 1 1]", got)
	}
	for name, f := range map[string]func(){
		"MaxOverlap": func() { res.MaxOverlap("nope", trace.Handler) },
		"Waves":      func() { res.Waves("nope", trace.IO) },
		"Within":     func() { res.Within("nope", trace.IO, trace.LoopBlocked) },
		"Value":      func() { res.Value("nope", "count") },
	} {
		func() {
			defer func() {
				var se *bench.StrategyError
				err, _ := recover().(error)
				if !errors.As(err, &se) || se.Strategy != "nope" || err.Error() != `bench: the result has no strategy "nope" (strategies: serial)` {
					t.Errorf("%s on an unknown strategy: panic %v; want a *StrategyError naming it", name, err)
				}
			}()
			f()
		}()
	}
}
