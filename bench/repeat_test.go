package bench_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
)

// Repeat runs each strategy that many times: the summary holds the median
// with the range beside it, the series every run.
func TestRunRepeatReportsMedianAndSpread(t *testing.T) {
	t.Parallel()
	strategies, err := bench.Presets("goroutines", "serial")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(10 * time.Millisecond)),
		Load:       load.Burst{N: 4},
		Repeat:     3,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Len() != 2 || len(res.Loads) != 6 || len(res.Servers) != 6 || len(res.Traces) != 2 {
		t.Fatalf("%d rows, %d loads, %d servers, %d traces; want 2, 6, 6, 2", s.Len(), len(res.Loads), len(res.Servers), len(res.Traces))
	}
	cols := s.Columns()
	for _, c := range bench.SpreadColumns {
		i := slices.Index(cols, c)
		if i < 0 || i+2 >= len(cols) || cols[i+1] != c+"_min" || cols[i+2] != c+"_max" {
			t.Fatalf("columns %v; want %s followed by %s_min and %s_max", cols, c, c, c)
		}
	}
	for row := 0; row < 2; row++ {
		var elapsed []float64
		for _, lr := range res.Loads[3*row : 3*row+3] {
			elapsed = append(elapsed, lr.Summary().Float("elapsed_s", 0))
		}
		slices.Sort(elapsed)
		lo, med, hi := s.Float("elapsed_s_min", row), s.Float("elapsed_s", row), s.Float("elapsed_s_max", row)
		if lo != elapsed[0] || med != elapsed[1] || hi != elapsed[2] {
			t.Errorf("row %d: elapsed min %v, median %v, max %v; want the runs' %v", row, lo, med, hi, elapsed)
		}
		if s.Float("count", row) != 4 || s.Float("errors", row) != 0 {
			t.Errorf("row %d: count %v errors %v; want the median of 4, 4, 4 and no errors", row, s.Float("count", row), s.Float("errors", row))
		}
	}
	if !res.Series.Has("run") || !slices.Equal(uniqueFloats(res.Series.Floats("run")), []float64{1, 2, 3}) {
		t.Errorf("series runs %v; want 1, 2, 3", uniqueFloats(res.Series.Floats("run")))
	}
}

func uniqueFloats(v []float64) []float64 {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

func TestRunRepeatBadInput(t *testing.T) {
	t.Parallel()
	strategies, _ := bench.Presets("goroutines")
	_, err := bench.Run(context.Background(), bench.Experiment{Strategies: strategies, Load: load.Burst{N: 1}, Repeat: -1})
	if err == nil {
		t.Fatal("Repeat -1 accepted")
	}
}

// Repeat gives the median of three runs and, beside the headline columns,
// their range.
func ExampleExperiment_repeat() {
	strategies, err := bench.Presets("goroutines")
	if err != nil {
		panic(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(10 * time.Millisecond)),
		Load:       load.Burst{N: 3},
		Repeat:     3,
	})
	if err != nil {
		panic(err)
	}
	s := res.Summary
	fmt.Println(s.Text("strategy", 0), s.Float("count", 0), "requests a run,", len(res.Loads), "runs")
	fmt.Println("min <= median <= max:", s.Float("rps_min", 0) <= s.Float("rps", 0) && s.Float("rps", 0) <= s.Float("rps_max", 0))
	// Output:
	// goroutines 3 requests a run, 3 runs
	// min <= median <= max: true
}
