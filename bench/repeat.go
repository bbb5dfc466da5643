package bench

import (
	"math"
	"slices"

	"github.com/conclab/conclab/bench/frame"
)

// SpreadColumns are the summary columns whose spread over repeated runs
// (Experiment.Repeat > 1) is shown beside their median, as COL_min and
// COL_max.
var SpreadColumns = []string{"elapsed_s", "rps", "avg_ms", "p95_ms"}

// summarize is one strategy's summary row: its run's summary joined with
// the server's columns, or, over several runs, each number column's median
// with SpreadColumns' minimum and maximum beside it. Label columns are the
// first run's.
func summarize(runs []run) (*frame.Frame, error) {
	sums := make([]*frame.Frame, len(runs))
	for i, r := range runs {
		s, err := joinServer(r.load.Summary(), r.stats)
		if err != nil {
			return nil, err
		}
		sums[i] = s
	}
	if len(sums) == 1 {
		return sums[0], nil
	}
	first := sums[0]
	out := frame.New(first.Name)
	row := frame.Row{}
	for _, c := range first.Columns() {
		k, _ := first.KindOf(c)
		if err := out.AddColumn(c, k); err != nil {
			return nil, err
		}
		if k == frame.Label {
			row[c] = first.Text(c, 0)
			continue
		}
		vals := make([]float64, 0, len(sums))
		for _, s := range sums {
			if s.Has(c) {
				vals = append(vals, s.Float(c, 0))
			}
		}
		row[c] = median(vals)
		if slices.Contains(SpreadColumns, c) {
			lo, hi := spread(vals)
			for _, col := range []string{c + "_min", c + "_max"} {
				if err := out.AddColumn(col, frame.Number); err != nil {
					return nil, err
				}
			}
			row[c+"_min"], row[c+"_max"] = lo, hi
		}
	}
	if err := out.Append(row); err != nil {
		return nil, err
	}
	return out, nil
}

// median is the middle of the values that are not NaN (the mean of the two
// middle ones for an even count); NaN when there are none.
func median(vals []float64) float64 {
	v := numbers(vals)
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// spread is the least and greatest value that is not NaN; NaN, NaN when
// there are none.
func spread(vals []float64) (lo, hi float64) {
	v := numbers(vals)
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Min(v), slices.Max(v)
}

func numbers(vals []float64) []float64 {
	out := make([]float64, 0, len(vals))
	for _, x := range vals {
		if !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// withRun returns f with a number column "run" set to r on every row, right
// after the label columns.
func withRun(f *frame.Frame, r int) (*frame.Frame, error) {
	out := frame.New(f.Name)
	added := false
	for _, c := range f.Columns() {
		k, _ := f.KindOf(c)
		if k == frame.Number && !added {
			if err := out.AddColumn("run", frame.Number); err != nil {
				return nil, err
			}
			added = true
		}
		if err := out.AddColumn(c, k); err != nil {
			return nil, err
		}
	}
	if !added {
		if err := out.AddColumn("run", frame.Number); err != nil {
			return nil, err
		}
	}
	for i := 0; i < f.Len(); i++ {
		row := f.Row(i)
		row["run"] = r
		if err := out.Append(row); err != nil {
			return nil, err
		}
	}
	return out, nil
}
