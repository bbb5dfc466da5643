package s003

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
)

// SummaryColumns are the columns of Summary's frame.
var SummaryColumns = []string{"strategy", "workload", "errors", "elapsed_s", "waits", "burns", "gil_wait_ms", "processes"}

// Summary is an I/O run's and a CPU run's summaries as one frame
// (SummaryColumns): the I/O rows in waits (elapsed_s ÷ Wait), the CPU
// rows in burns (elapsed_s ÷ cost, the CPU a request costs: S). Either
// result may be nil.
func (k Knobs) Summary(io, cpu *bench.Result, cost time.Duration) (*frame.Frame, error) {
	if cost <= 0 && cpu != nil {
		return nil, fmt.Errorf("s003: Summary: cost (S) must be positive, got %v", cost)
	}
	out := frame.Of(fmt.Sprintf("this machine: %d requests at once (I/O in waits of %v, CPU in burns of %v)", k.N, k.Wait, cost.Round(time.Millisecond)), SummaryColumns...)
	for _, part := range []struct {
		res      *bench.Result
		workload string
		unit     float64
	}{{io, "io", k.Wait.Seconds()}, {cpu, "cpu", cost.Seconds()}} {
		if part.res == nil {
			continue
		}
		for _, r := range part.res.Summary.Rows() {
			row := frame.Row{"strategy": r.Text("strategy"), "workload": part.workload, "errors": r.Float("errors"),
				"elapsed_s": r.Float("elapsed_s"), "gil_wait_ms": r.Float("gil_wait_ms"), "processes": r.Float("processes")}
			col := "waits"
			if part.workload == "cpu" {
				col = "burns"
			}
			row[col] = r.Float("elapsed_s") / part.unit
			out.MustAppend(row)
		}
	}
	return out, nil
}

// SpeedUps are the two-worker servers' speed-ups over one worker in a
// Summary's CPU rows (strategy, source, model, real: 1w elapsed ÷ 2w
// elapsed), beside the source's (25 → 14 s and 27 → 17 s): Flask 1w x
// 10t over 2w x 5t, FastAPI 1w over 2w. A side that did not run is NaN.
func SpeedUps(summary *frame.Frame) *frame.Frame {
	out := frame.Of("two workers' speed-up over one (1w elapsed ÷ 2w elapsed)", "strategy", "source", "model", "real")
	cpu := summary.Where("workload", "cpu")
	get := func(name string) float64 {
		v, err := cpu.Get("strategy", name, "elapsed_s")
		if err != nil {
			return nan
		}
		return v
	}
	for _, p := range []struct {
		one, two string
		source   float64
	}{{"flask 1w x 10t", "flask 2w x 5t", 25.0 / 14}, {"fastapi 1w", "fastapi 2w", 27.0 / 17}} {
		out.MustAppend(frame.Row{"strategy": p.two, "source": p.source,
			"model": get(p.one) / get(p.two), "real": get(cpython.RealPrefix+p.one) / get(cpython.RealPrefix+p.two)})
	}
	return out
}

// SourceBusiest is the busiest worker's share of a burst the source's
// speed-ups imply, if S did not change: 14 / 25 for Flask 2w x 5t, 17 /
// 27 for FastAPI 2w (one worker's ten burns took 25 and 27 s).
var SourceBusiest = map[string]float64{"flask 2w x 5t": 14.0 / 25, "fastapi 2w": 17.0 / 27}

// SplitBurns is what a measured split means for the burst's time: for
// each row of Busiest's frame (two-worker servers), the burst of n in
// burns on each of cores — the busiest worker's share × n while every
// worker has a core, n when they share one — beside the source's implied
// share (SourceBusiest) on the same cores (strategy, cores, busiest,
// burns, source_busiest, source_burns).
func SplitBurns(busiest *frame.Frame, n int, cores ...int) *frame.Frame {
	out := frame.Of(fmt.Sprintf("a burst of %d over two workers, in burns, by its split", n), "strategy", "cores", "busiest", "burns", "source_busiest", "source_burns")
	burns := func(share float64, c int) float64 {
		if c < 2 {
			return float64(n)
		}
		return share * float64(n)
	}
	for _, r := range busiest.Rows() {
		s := r.Text("strategy")
		src := nan
		for name, v := range SourceBusiest {
			if strings.TrimPrefix(s, cpython.RealPrefix) == name {
				src = v
			}
		}
		for _, c := range cores {
			out.MustAppend(frame.Row{"strategy": s, "cores": c, "busiest": r.Float("busiest"), "burns": burns(r.Float("busiest"), c),
				"source_busiest": src, "source_burns": burns(src, c)})
		}
	}
	return out
}

// AcceptGaps are the model's accept spacing, per two-worker strategy of a
// traced result: the gaps between one accept's end and the next's start
// in the same worker (gaps over maxGap, between bursts, left out), split
// by what the worker's handler threads were doing meanwhile — "idle" (no
// request computing in that worker) or "computing" — with their count and
// median in µs (strategy, while, gaps, median_us). The convoy effect: the
// computing gaps are the longer ones.
func AcceptGaps(res *bench.Result, maxGap time.Duration) *frame.Frame {
	out := frame.Of("accept spacing in the model's workers", "strategy", "while", "gaps", "median_us")
	for _, s := range res.Summary.Texts("strategy") {
		evs := res.Events(s)
		accepts := map[int][]trace.Event{}
		cpu := map[int][]trace.Event{}
		for _, e := range evs {
			switch {
			case e.Phase == trace.Accept:
				accepts[e.Worker] = append(accepts[e.Worker], e)
			case e.Request != 0 && (e.Phase == trace.CPU || e.Phase == trace.GIL):
				cpu[e.Worker] = append(cpu[e.Worker], e)
			}
		}
		if len(accepts) < 2 {
			continue
		}
		gaps := map[string][]float64{}
		for w, as := range accepts {
			sort.Slice(as, func(i, j int) bool { return as[i].Start < as[j].Start })
			for i := 1; i < len(as); i++ {
				from, to := as[i-1].End, as[i].Start
				if to < from || time.Duration(to-from) > maxGap {
					continue
				}
				while := "idle"
				for _, c := range cpu[w] {
					if c.Start < to && c.End > from {
						while = "computing"
						break
					}
				}
				gaps[while] = append(gaps[while], float64(to-from)/1e3)
			}
		}
		for _, while := range []string{"idle", "computing"} {
			g := gaps[while]
			med := nan
			if len(g) > 0 {
				sort.Float64s(g)
				med = g[len(g)/2]
			}
			out.MustAppend(frame.Row{"strategy": s, "while": while, "gaps": len(g), "median_us": med})
		}
	}
	return out
}

var nan = math.NaN()

// Machine is what the split depends on, as this machine has it: its cores
// (as Python sees them), the CPython and gunicorn versions (machine,
// cores, python, gunicorn; "not installed" when gunicorn is not).
func Machine(ctx context.Context, o cpython.Options) (*frame.Frame, error) {
	env, err := cpython.Detect(ctx, o.Python)
	if err != nil {
		return nil, err
	}
	g, ok := env.Packages["gunicorn"]
	if !ok {
		g = "not installed"
	}
	f := frame.Of("this machine", "machine", "cores", "python", "gunicorn")
	f.MustAppend(frame.Row{"machine": "this machine", "cores": env.CPUs, "python": env.Implementation + " " + env.Version, "gunicorn": g})
	f.MustAppend(frame.Row{"machine": "the source's laptop", "cores": nan, "python": "not stated (Docker)", "gunicorn": "not stated"})
	return f, nil
}
