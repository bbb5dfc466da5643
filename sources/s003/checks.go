package s003

import (
	"fmt"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/sources/shape"
)

// IOChecks are the shape of an IOExperiment (or IOVersus) result with
// these knobs: every server's model sleeps in ⌈N / width⌉ waves, as many
// at once as its threads (or tokens) allow, and takes at least its waves;
// every row, real ones too, answers N without errors.
func (k Knobs) IOChecks(res *bench.Result) []shape.Check {
	var out []shape.Check
	for _, c := range k.IO {
		m := k.model(c).Label()
		at := k.width(c)
		waves := (k.N + at - 1) / at
		out = append(out,
			shape.Equal("I/O "+m+": waves of sleeps", len(res.Waves(m, trace.IO)), waves),
			shape.Equal("I/O "+m+": most sleeping at once", res.MaxOverlap(m, trace.IO), at),
			shape.AtLeast("I/O "+m+": waits (≥ its waves)", res.Value(m, "elapsed_s")/k.Wait.Seconds(), 0.95*float64(waves)))
		for _, row := range rowsOf(res.Summary, m) {
			out = append(out, shape.Equal("I/O "+row+": answered", res.Value(row, "count"), k.N),
				shape.Equal("I/O "+row+": errors", res.Value(row, "errors"), 0))
		}
	}
	return out
}

// CPUChecks are the shape of a CPUExperiment (or CPUVersus) result with
// these knobs and a CPU per request of burn: every row answers N without
// errors; on each model, one GIL holder at a time in a process (none
// taken free-threaded), the burst no shorter than its busiest worker's
// requests times burn, and with several workers the requests summed over
// them N and as many GIL holders for requests at once across them as
// workers served.
func (k Knobs) CPUChecks(res *bench.Result, burn float64) []shape.Check {
	var out []shape.Check
	for _, c := range k.CPU {
		m := k.model(c).Label()
		for _, row := range rowsOf(res.Summary, m) {
			out = append(out, shape.Equal("CPU "+row+": answered", res.Value(row, "count"), k.N),
				shape.Equal("CPU "+row+": errors", res.Value(row, "errors"), 0))
		}
		if k.FreeThreaded {
			out = append(out, shape.Equal("CPU "+m+": GIL holders (free-threaded: none)", res.MaxOverlap(m, trace.GIL), 0))
		} else {
			out = append(out, shape.Equal("CPU "+m+": GIL holders at once in a process", res.MaxOverlapPerWorker(m, trace.GIL), 1))
		}
		counts, err := WorkerCounts(res, m, c.Workers)
		if err != nil {
			out = append(out, shape.True("CPU "+m+": every request on one of its workers ("+err.Error()+")", false))
			continue
		}
		served, busiest, sum := 0, 0, 0
		for _, n := range counts {
			sum += n
			if n > 0 {
				served++
			}
			busiest = max(busiest, n)
		}
		el := res.Value(m, "elapsed_s")
		out = append(out, shape.Equal("CPU "+m+": requests summed over its workers", sum, k.N))
		if !k.FreeThreaded {
			out = append(out, shape.AtLeast("CPU "+m+": elapsed / (busiest worker's requests x burn)", el/(float64(busiest)*burn), 0.95))
			if c.Workers > 1 {
				out = append(out, shape.Equal("CPU "+m+": GIL holders for requests at once across its workers (= workers that served)", trace.MaxOverlap(forRequests(res.Events(m)), trace.GIL), served))
			}
		}
	}
	return out
}

// SplitChecks are the shape of a Split frame of bursts of n: every burst
// of every strategy sums to n over exactly its server's workers.
func SplitChecks(split *frame.Frame, n int, stacks ...Stack) []shape.Check {
	type key struct {
		s string
		b float64
	}
	sum, rows := map[key]float64{}, map[key]int{}
	var order []key
	for i := 0; i < split.Len(); i++ {
		k := key{split.Text("strategy", i), split.Float("burst", i)}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		sum[k] += split.Float("requests", i)
		rows[k]++
	}
	var out []shape.Check
	for _, c := range stacks {
		for _, label := range []string{c.Name(), cpython.RealPrefix + c.Name()} {
			good, total := 0, 0
			for _, k := range order {
				if k.s != label {
					continue
				}
				total++
				if sum[k] == float64(n) && rows[k] == c.Workers {
					good++
				}
			}
			if total > 0 {
				out = append(out, shape.Equal(fmt.Sprintf("split %s: bursts of %d over its %d workers", label, n, c.Workers), good, total))
			}
		}
	}
	return out
}

// forRequests is the intervals of evs that belong to a request: not a
// worker's own, such as the accept loop's GIL hold of a worker woken with
// the others for a connection another took.
func forRequests(evs []trace.Event) []trace.Event {
	var out []trace.Event
	for _, e := range evs {
		if e.Request != 0 {
			out = append(out, e)
		}
	}
	return out
}

// rowsOf is the model row m and its real row, those the summary has.
func rowsOf(f *frame.Frame, m string) []string {
	var out []string
	for _, s := range f.Texts("strategy") {
		if s == m || s == cpython.RealPrefix+m {
			out = append(out, s)
		}
	}
	return out
}
