#!/usr/bin/env python3
"""Generates the seed notebooks (nbformat 4.5, no outputs). Run: python3 notebooks/gen.py [OUTDIR]
(OUTDIR defaults to this folder; scripts/check-generated.sh writes to a temp dir and compares)."""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else HERE

def nb(name, cells):
    out = []
    for i, (kind, src) in enumerate(cells):
        c = {"cell_type": kind, "id": "%s-%d" % (name.replace(".", "-")[:40], i + 1), "metadata": {}, "source": src.strip("\n")}
        if kind == "code":
            c["execution_count"] = None
            c["outputs"] = []
        out.append(c)
    doc = {"cells": out, "metadata": {
        "kernelspec": {"name": "conclab", "display_name": "Go (conclab)", "language": "go"},
        "language_info": {"name": "go", "file_extension": ".go", "mimetype": "text/x-go"}},
        "nbformat": 4, "nbformat_minor": 5}
    with open(os.path.join(OUT, name + ".ipynb"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")

def real_section(var, intro, compute, metric, extra_cols=""):
    """The "model vs real CPython" cells: compute assigns VAR (nil when Python is missing)."""
    cols = '"strategy", "load", "metric", "model", "real", "ratio", "agree", "verdict"' + extra_cols
    return [
        (M, "## Model vs real CPython\n\n" + intro.strip("\n") + """

When Python or one of its packages is missing, the cell says which Debian packages to install and
this section is skipped; the rest of the notebook does not depend on it."""),
        (C, ("var %s *frame.Frame\n" % var) + compute.strip("\n") + ("""
if err != nil && errors.Is(err, cpython.ErrUnavailable) {
	fmt.Println("Skipping the real-CPython comparison:", err)
} else if err != nil {
	panic(err)
} else {
	%s = cmp
	fmt.Printf("%%s, %%v CPUs; packages: %%s\\n", %s.Text("python", 0), %s.Float("cpus", 0), %s.Text("packages", 0))
}""" % (var, var, var, var))),
        (C, """if %s != nil {
	var shown *frame.Frame
	shown, err = %s.Select(%s)
	if err != nil {
		panic(err)
	}
	display.Show(shown)
	display.Show(charts.ModelVsReal(%s, "%s"))
	agreeing := 0
	for _, a := range %s.Floats("agree") {
		if a == 1 {
			agreeing++
		}
	}
	fmt.Printf("Model vs real CPython: %%d of %%d comparisons agree.\\n", agreeing, %s.Len())
}""" % (var, var, cols, var, metric, var, var)),
    ]

M, C = "markdown", "code"

nb("00-quickstart", [
 (M, """# Quickstart: compare concurrency strategies

Four FastAPI-style endpoints from source 001 serve the same request — a 1 s I/O wait —
and a burst of 10 requests arrives at once. `bench.Run` starts each strategy's server on
loopback, loads it, measures it and closes it. With `conclab run --quick` the wait is 0.2 s."""),
 (C, """import (
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/kernel/cell"
)

wait := time.Second
if os.Getenv("CONCLAB_QUICK") != "" {
	wait = 200 * time.Millisecond
}"""),
 (C, """strategies, err := bench.Presets("/sync-sleep", "/async-block", "/async-ok", "/offload")
if err != nil {
	panic(err)
}
res, err := bench.Run(cell.Context(), bench.Experiment{
	Name:       "quickstart",
	Strategies: strategies,
	Workload:   bench.Steps(bench.Sleep(wait)),
	Load:       load.Burst{N: 10},
})
if err != nil {
	panic(err)
}"""),
 (C, """sum, err := res.Summary.Select("strategy", "count", "errors", "elapsed_s", "avg_ms", "max_ms", "loop_blocked_max_ms")
if err != nil {
	panic(err)
}
sum"""),
 (C, """charts.Latency(res.Summary)"""),
])

nb("001-def-vs-async", [
 (M, """# 001 — `def` vs `async def`

Source 001 (a FastAPI book section) has four endpoints that each wait 1 s:

* `/sync-sleep` — `def` + `time.sleep(1)`: runs on Starlette's 40-thread pool;
* `/async-block` — `async def` + `time.sleep(1)`: the bug, the sleep blocks the event loop;
* `/async-ok` — `async def` + `await asyncio.sleep(1)`;
* `/offload` — `async def` + `await asyncio.to_thread(...)` (the exercise).

It sends 10 requests at once and times the batch: about 1 s, except `/async-block` at about 10 s.
It also says that 100 concurrent requests to `/sync-sleep` take ~3 s, because the pool has 40 threads
(three waves). Here the model runs each endpoint for real. `conclab run --quick` shortens the wait
from 1 s to 0.2 s; the shape is compared in *waits* (batch time / one wait), which does not depend on it."""),
 (C, """import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

wait := time.Second
if os.Getenv("CONCLAB_QUICK") != "" {
	wait = 200 * time.Millisecond
}
fmt.Println("one wait =", wait)"""),
 (M, "## The source's table"),
 (C, """source := frame.New("source 001: 10 concurrent requests, 1 s wait each")
source.MustAppend(frame.Row{"strategy": "/sync-sleep", "elapsed_s": 1.03, "waits": 1.03})
source.MustAppend(frame.Row{"strategy": "/async-block", "elapsed_s": 10.02, "waits": 10.02})
source.MustAppend(frame.Row{"strategy": "/async-ok", "elapsed_s": 1.03, "waits": 1.03})
source"""),
 (M, "## Measured: a burst of 10"),
 (C, """strategies, err := bench.Presets("/sync-sleep", "/async-block", "/async-ok", "/offload")
if err != nil {
	panic(err)
}
res, err := bench.Run(cell.Context(), bench.Experiment{
	Name:       "001: burst of 10",
	Strategies: strategies,
	Workload:   bench.Steps(bench.Sleep(wait)),
	Load:       load.Burst{N: 10},
})
if err != nil {
	panic(err)
}
measured := frame.New("measured: burst of 10")
for i := 0; i < res.Summary.Len(); i++ {
	el := res.Summary.Float("elapsed_s", i)
	measured.MustAppend(frame.Row{
		"strategy":            res.Summary.Text("strategy", i),
		"errors":              res.Summary.Float("errors", i),
		"elapsed_s":           el,
		"waits":               el / wait.Seconds(),
		"max_ms":              res.Summary.Float("max_ms", i),
		"loop_blocked_max_ms": res.Summary.Float("loop_blocked_max_ms", i),
	})
}
measured"""),
 (C, """charts.SourceVsMeasured(source, measured, "waits")"""),
 (C, """charts.Latency(res.Summary)"""),
 (M, """## Why: the waterfall

Every server traced each request (`res.Trace`: one row per interval — strategy, request, worker,
thread, phase, start_ms, end_ms). Here each row is one request in the order it arrived, each bar a
phase of its life inside the server. `/async-block` is a staircase: each request waits in `queue`
for the event loop while the request before it holds the loop for its whole `time.sleep` (its `io`
runs *on* the loop). `/sync-sleep` runs all ten at once on AnyIO threads, `/async-ok` awaits all
ten sleeps together, `/offload` hands them to asyncio's default executor. `res.WriteTrace(path)`
writes the same trace for Perfetto (ui.perfetto.dev) or chrome://tracing: a track per thread."""),
 (C, """charts.Waterfall(res.Trace)"""),
 (M, """## The exercise: 100 concurrent requests on `/sync-sleep`

A `def` endpoint runs on AnyIO's 40-token limiter, so 100 requests go in three waves (40, 40, 20)."""),
 (C, """sync, err := bench.Presets("/sync-sleep")
if err != nil {
	panic(err)
}
res100, err := bench.Run(cell.Context(), bench.Experiment{
	Name:       "001: 100 concurrent on /sync-sleep",
	Strategies: sync,
	Workload:   bench.Steps(bench.Sleep(wait)),
	Load:       load.Burst{N: 100},
})
if err != nil {
	panic(err)
}
waves := res100.Summary.Float("elapsed_s", 0) / wait.Seconds()
fmt.Printf("100 concurrent on /sync-sleep: %.2f s = %.2f waits (source: ~3 s, three waves)\\n", res100.Summary.Float("elapsed_s", 0), waves)
res100.Summary"""),
 (M, """The trace shows the three waves: 40 requests take AnyIO's 40 tokens and sleep; the other 60 wait
for a token (`limiter_wait`); as the first 40 finish, the next 40 start; then the last 20."""),
 (C, """tr100, _ := res100.TraceOf("/sync-sleep")
fmt.Println("most requests running at once:", trace.MaxOverlap(tr100.Events, trace.Handler))
fmt.Println("waves (each begins when a request had to wait for one to finish):", trace.Waves(tr100.Events, trace.Handler))
charts.Waterfall(res100.Trace)"""),
 *real_section("real001", """
The same four endpoints as a real FastAPI app under `python3 -m uvicorn`, hit by the source's own
kind of client (httpx, a Python process), next to the model's prediction for the same burst. The
model runs with this machine's CPU count, so `/offload` (asyncio's default executor of
min(32, CPUs + 4) threads) takes two waves of 10 requests on a 2-CPU machine and one on the
source's 8-core laptop. `fixed` is the real stack's own cost at zero wait; agreement is within ±10 %
of the band [model, model + fixed].""", """
realCases := []cpython.Case001{}
for _, ep := range cpython.Endpoints001 {
	realCases = append(realCases, cpython.Case001{Endpoint: ep, N: 10, Wait: wait})
}
realCases = append(realCases, cpython.Case001{Endpoint: cpython.SyncSleep, N: 100, Wait: wait})
cmp, err := cpython.Compare001(cell.Context(), cpython.Options{}, realCases)""", "elapsed_s"),
 (M, """### The real server's waterfall beside the model's

The real app records each request's start and end and the thread that ran it (a small middleware,
on only for this run): the same waterfall, real uvicorn next to the model, for the 100-request burst
on `/sync-sleep` and ten on `/async-block`. The real rows have no `limiter_wait`: the middleware
sees a request arrive and its handler start, and the gap is the `queue` for a token."""),
 (C, """realTrace, err := cpython.TraceBurst(cell.Context(), cpython.Options{}, cpython.App001(wait), "/sync-sleep", 100, "real /sync-sleep")
if err == nil {
	var block *frame.Frame
	block, err = cpython.TraceBurst(cell.Context(), cpython.Options{}, cpython.App001(wait), "/async-block", 10, "real /async-block")
	if err == nil {
		realTrace, err = frame.Concat("real", realTrace, block)
	}
}
if err != nil && errors.Is(err, cpython.ErrUnavailable) {
	fmt.Println("Skipping the real server's waterfall:", err)
} else if err != nil {
	panic(err)
} else {
	fmt.Println("real /sync-sleep: most running at once", trace.MaxOverlap(bench.EventsOf(realTrace, "real /sync-sleep"), trace.Handler),
		"in waves of", trace.Waves(bench.EventsOf(realTrace, "real /sync-sleep"), trace.Handler))
	fmt.Println("real /async-block: most running at once", trace.MaxOverlap(bench.EventsOf(realTrace, "real /async-block"), trace.Handler))
	modelSync := res100.Trace.With("strategy", "model /sync-sleep")
	modelBlock := res.Trace.Where("strategy", "/async-block").With("strategy", "model /async-block")
	var both *frame.Frame
	both, err = frame.Concat("model and real", modelSync, realTrace.Where("strategy", "real /sync-sleep"), modelBlock, realTrace.Where("strategy", "real /async-block"))
	if err != nil {
		panic(err)
	}
	display.Show(charts.WaterfallRows(both, 160).Title("Model vs real uvicorn: request waterfall"))
}"""),
 (M, """## Shape check

Does the source's shape hold? Read from the trace, exactly: `/async-block` runs its ten handlers one
at a time, with the loop blocked for the whole of each sleep; the others run all ten at once; and
100 concurrent `/sync-sleep` requests run at most 40 at a time, in three waves of 40, 40 and 20.
The wall clock only has to agree with the waves (a batch cannot beat them; a loaded machine may be
slower). The cell fails when the shape does not hold."""),
 (C, """var failed []string
for i := 0; i < measured.Len(); i++ {
	name, w := measured.Text("strategy", i), measured.Float("waits", i)
	evs := bench.EventsOf(res.Trace, name)
	running := trace.MaxOverlap(evs, trace.Handler)
	want, wantWaves := 10, 1
	if name == "/async-block" {
		want, wantWaves = 1, 10
	}
	sleeps := len(trace.Waves(evs, trace.IO))
	ok := running == want && sleeps == wantWaves && w >= 0.95*float64(wantWaves) && measured.Float("errors", i) == 0
	fmt.Printf("%-13s %2d running at once (want %d), %2d waves of sleeps (want %d), %5.2f waits: %v\\n", name, running, want, sleeps, wantWaves, w, ok)
	if !ok {
		failed = append(failed, name)
	}
}
inside, total := trace.Within(bench.EventsOf(res.Trace, "/async-block"), trace.IO, trace.LoopBlocked)
fmt.Printf("/async-block: %d of %d sleeps inside a blocked-loop interval (want all): %v\\n", inside, total, inside == total && total == 10)
if inside != total || total != 10 {
	failed = append(failed, "/async-block loop not blocked for each sleep")
}
running100 := trace.MaxOverlap(tr100.Events, trace.Handler)
waves100 := fmt.Sprint(trace.Waves(tr100.Events, trace.Handler))
okWaves := running100 == 40 && waves100 == "[40 40 20]" && waves >= 2.95
fmt.Printf("%-13s %2d running at once (want 40), waves %s (want [40 40 20]), %.2f waits: %v\\n", "100 x /sync", running100, waves100, waves, okWaves)
if !okWaves {
	failed = append(failed, "100 concurrent /sync-sleep")
}
if len(failed) > 0 {
	panic(fmt.Sprintf("source 001's shape did NOT hold for %v", failed))
}
fmt.Println("Source 001's shape held: /async-block serialises the burst (~10 waits), the others finish in ~1 wait, and 100 def requests take three waves.")"""),
])

nb("003-workers-threads", [
 (M, """# 003 — workers and threads (Flask vs FastAPI)

Source 003 (a blog post) sends 10 concurrent requests to gunicorn-served apps.

* **I/O** (`time.sleep(10)`): Flask 1 worker x 5 threads → 20 s (two waves), 1w x 10 threads → 11 s;
  FastAPI with a `def` handler → 11 s whatever the thread count (its own 40-thread pool).
* **CPU** (`sum(x**2 for x in range(10_000_000))`): Flask 1w x 10t → 25 s, 2w x 5t → 14 s;
  FastAPI 1 worker → 27 s, 2 workers → 17 s. Threads do not run Python CPU work in parallel under
  the GIL; worker processes do.

Here the I/O wait is 1 s (0.2 s with `--quick`) and each request's CPU work is a calibrated
GIL-holding burn of 200 ms (100 ms with `--quick`); results are compared in waits and in the
2-worker speed-up, which do not depend on those sizes. This machine has 2 shared cores, so the
CPU speed-up is noisy."""),
 (C, """import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

wait, burn := time.Second, 200*time.Millisecond
if os.Getenv("CONCLAB_QUICK") != "" {
	wait, burn = 200*time.Millisecond, 100*time.Millisecond
}
fmt.Println("I/O wait =", wait, " CPU burn per request =", burn)"""),
 (C, """source := frame.New("source 003: 10 concurrent requests")
source.MustAppend(frame.Row{"strategy": "flask 1w x 5t", "workload": "io", "elapsed_s": 20.0, "waits": 2.0})
source.MustAppend(frame.Row{"strategy": "flask 1w x 10t", "workload": "io", "elapsed_s": 11.0, "waits": 1.1})
source.MustAppend(frame.Row{"strategy": "fastapi 1w", "workload": "io", "elapsed_s": 11.0, "waits": 1.1})
source.MustAppend(frame.Row{"strategy": "flask 1w x 10t", "workload": "cpu", "elapsed_s": 25.0})
source.MustAppend(frame.Row{"strategy": "flask 2w x 5t", "workload": "cpu", "elapsed_s": 14.0})
source.MustAppend(frame.Row{"strategy": "fastapi 1w", "workload": "cpu", "elapsed_s": 27.0})
source.MustAppend(frame.Row{"strategy": "fastapi 2w", "workload": "cpu", "elapsed_s": 17.0})
source"""),
 (M, "## I/O: waves of threads"),
 (C, """ioStrategies, err := bench.Presets("flask 1w x 5t", "flask 1w x 10t", "fastapi 1w")
if err != nil {
	panic(err)
}
ioRes, err := bench.Run(cell.Context(), bench.Experiment{
	Name:       "003 I/O: burst of 10",
	Strategies: ioStrategies,
	Workload:   bench.Steps(bench.Sleep(wait)),
	Load:       load.Burst{N: 10},
})
if err != nil {
	panic(err)
}
ioMeasured := frame.New("measured I/O: burst of 10")
for i := 0; i < ioRes.Summary.Len(); i++ {
	ioMeasured.MustAppend(frame.Row{
		"strategy":  ioRes.Summary.Text("strategy", i),
		"errors":    ioRes.Summary.Float("errors", i),
		"elapsed_s": ioRes.Summary.Float("elapsed_s", i),
		"waits":     ioRes.Summary.Float("elapsed_s", i) / wait.Seconds(),
	})
}
ioMeasured"""),
 (C, """charts.SourceVsMeasured(source.Where("workload", "io"), ioMeasured, "waits")"""),
 (M, """Why two waves for Flask 1w x 5t: the trace shows five requests taking the worker's five threads and
the other five waiting for one (`thread_wait`) until the first five have slept. FastAPI's `def`
handler has AnyIO's 40 tokens, so its ten run at once whatever gunicorn's thread count."""),
 (C, """charts.Waterfall(ioRes.Trace)"""),
 (M, "## CPU under the GIL: threads vs worker processes"),
 (C, """cpuStrategies, err := bench.Presets("flask 1w x 10t", "flask 2w x 5t", "fastapi 1w", "fastapi 2w")
if err != nil {
	panic(err)
}
cpuRes, err := bench.Run(cell.Context(), bench.Experiment{
	Name:       "003 CPU: burst of 10",
	Strategies: cpuStrategies,
	Workload:   bench.Steps(bench.Burn(burn)),
	Load:       load.Burst{N: 10},
	Pause:      100 * time.Millisecond,
})
if err != nil {
	panic(err)
}
cpuSum, err := cpuRes.Summary.Select("strategy", "errors", "elapsed_s", "avg_ms", "max_ms", "cpu_s", "gil_wait_ms", "processes")
if err != nil {
	panic(err)
}
cpuSum"""),
 (C, """charts.Latency(cpuRes.Summary)"""),
 (M, """## Why: who holds the GIL

One lane per thread of each worker process: orange where the thread holds its process's GIL, red
where it waits for it. In one worker the ten threads take turns — only one lane of a process is ever
orange, the GIL changing hands every 5 ms (the switch interval) —, so ten 100–200 ms burns take ten
burns' time. Two workers are two processes with a GIL each: two lanes are orange at once, one per
worker. (FastAPI's loop lane shows the event loop's own short turns with the GIL.)"""),
 (C, """charts.Lanes(cpuRes.Trace)"""),
 (C, """charts.Waterfall(cpuRes.Trace.Where("strategy", "flask 2w x 5t")).Title("flask 2w x 5t: each request's turns on its worker's GIL")"""),
 *real_section("realIO", """
### I/O

The source's Flask and FastAPI apps under real gunicorn (gthread workers for Flask, uvicorn workers
for FastAPI), a burst of 10 I/O requests, next to the model. Agreement is within ±10 %.""", """
cmp, err := cpython.Compare003(cell.Context(), cpython.Options{}, cpython.ModeIO, cpython.Cases003IO, 10, wait, 0, nil)""", "elapsed_s"),
 *real_section("realCPU", """
### CPU

The real `sum(x**2 for x in range(n))` under gunicorn, and the model burning the CPU time that sum
was measured to cost on this machine's CPython (calibrated first), holding the GIL as CPython does.
Agreement is within ±25 %; on a shared 2-core machine the two-worker rows are the noisiest.""", """
sumN := 3_000_000
if os.Getenv("CONCLAB_QUICK") != "" {
	sumN = 1_000_000
}
cmp, err := cpython.Compare003(cell.Context(), cpython.Options{BestOf: 2}, cpython.ModeCPU, cpython.Cases003CPU, 10, 0, sumN, nil)""", "elapsed_s"),
 (M, """## Shape check

I/O, read from the trace: 1w x 5t sleeps in two waves of five, 1w x 10t and FastAPI in one wave of
ten. CPU: in every process no two threads hold the GIL at once, while two workers' GILs are held at
the same time (the trace's exact facts); one worker serialises the ten burns
(≈ 10 x burn); two workers have two GILs, so requests wait less for one, and with a free second core
they finish sooner (source: 25 → 14 s and 27 → 17 s, a 1.6–1.8x speed-up). The wall-clock speed-up is
only required not to be a slow-down, since this 2-core machine is shared."""),
 (C, """var failed []string
check := func(what string, got, lo, hi float64) {
	ok := got >= lo && got <= hi
	fmt.Printf("%-34s %6.2f (want %.2f–%.2f): %v\\n", what, got, lo, hi, ok)
	if !ok {
		failed = append(failed, what)
	}
}
// I/O, from the trace: the waves of sleeps (a wave begins with a request
// that had to wait for another to finish) and the most sleeping at once;
// the wall clock must only cover the waves.
for i := 0; i < ioMeasured.Len(); i++ {
	name := ioMeasured.Text("strategy", i)
	evs := bench.EventsOf(ioRes.Trace, name)
	want, at := "[10]", 10.0
	if name == "flask 1w x 5t" {
		want, at = "[5 5]", 5 // two waves of the worker's five threads
	}
	got := fmt.Sprint(trace.Waves(evs, trace.IO))
	ok := got == want
	fmt.Printf("%-34s %6s (want %s): %v\\n", "I/O "+name+" waves", got, want, ok)
	if !ok {
		failed = append(failed, "I/O "+name+" waves")
	}
	check("I/O "+name+" most sleeping at once", float64(trace.MaxOverlap(evs, trace.IO)), at, at)
	check("I/O "+name+" waits (≥ its waves)", ioMeasured.Float("waits", i), 0.95*float64(len(trace.Waves(evs, trace.IO))), 100)
}
// CPU, from the trace: no two threads of one process ever hold its GIL at
// once; two workers' GILs are held at the same time.
for _, name := range []string{"flask 1w x 10t", "flask 2w x 5t", "fastapi 1w", "fastapi 2w"} {
	evs := bench.EventsOf(cpuRes.Trace, name)
	check("GIL holders at once in a process: "+name, float64(trace.MaxOverlapPerWorker(evs, trace.GIL)), 1, 1)
}
check("GIL holders at once across flask 2w x 5t's workers", float64(trace.MaxOverlap(bench.EventsOf(cpuRes.Trace, "flask 2w x 5t"), trace.GIL)), 2, 2)
el := map[string]float64{}
for i := 0; i < cpuRes.Summary.Len(); i++ {
	el[cpuRes.Summary.Text("strategy", i)] = cpuRes.Summary.Float("elapsed_s", i)
	if cpuRes.Summary.Float("errors", i) != 0 {
		failed = append(failed, "errors in "+cpuRes.Summary.Text("strategy", i))
	}
}
serial := 10 * burn.Seconds()
check("CPU flask 1w x 10t / (10 x burn)", el["flask 1w x 10t"]/serial, 0.9, 3.0)
check("CPU fastapi 1w / (10 x burn)", el["fastapi 1w"]/serial, 0.9, 3.0)
gil := map[string]float64{}
for i := 0; i < cpuRes.Summary.Len(); i++ {
	gil[cpuRes.Summary.Text("strategy", i)] = cpuRes.Summary.Float("gil_wait_ms", i)
}
// Two workers means two GILs, each shared by half the requests: less GIL waiting.
check("GIL wait flask 2w x 5t / 1w x 10t", gil["flask 2w x 5t"]/gil["flask 1w x 10t"], 0, 0.9)
check("GIL wait fastapi 2w / 1w", gil["fastapi 2w"]/gil["fastapi 1w"], 0, 0.9)
// The wall-clock speed-up needs a free second core; on a busy shared
// machine it shrinks, so only "not slower" is required and the rest is reported.
for _, pair := range [][2]string{{"flask 1w x 10t", "flask 2w x 5t"}, {"fastapi 1w", "fastapi 2w"}} {
	sp := el[pair[0]] / el[pair[1]]
	check("CPU speed-up "+pair[0]+" → "+pair[1], sp, 0.9, 2.5)
	if sp < 1.2 {
		fmt.Printf("  note: speed-up %.2f < 1.2 — the second core was busy during this run (source: 1.6–1.8x)\\n", sp)
	}
}
if len(failed) > 0 {
	panic(fmt.Sprintf("source 003's shape did NOT hold for %v", failed))
}
fmt.Println("Source 003's shape held: threads come in waves for I/O, the GIL serialises CPU in one worker, and a second worker process (a second GIL) cuts the GIL waiting.")"""),
])

nb("002-fanout", [
 (M, """# 002 — 100 downstream calls: sequential, thread pools, all at once

Source 002 (a translated blog post) calls a mock downstream `/health` that waits 200 ms, 100 times:

| client | total time |
|---|---|
| sequential (requests) | ~20.3 s |
| ThreadPoolExecutor, 100 workers | 8.5 s first, then 3–6 s |
| ThreadPoolExecutor, 30 workers | 2.1 s |
| asyncio + aiohttp, gather | 0.45–0.60 s |

Arithmetic says 100 workers should take about one wait; the article's 3–8 s reflects its machine's
thread and connection overheads. Here a real downstream runs on loopback (200 ms; 50 ms with
`--quick`) and the calls are made for real; times are compared in waits (total / one latency)."""),
 (C, """import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/bench/workload"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

latency := 200 * time.Millisecond
if os.Getenv("CONCLAB_QUICK") != "" {
	latency = 50 * time.Millisecond
}
fmt.Println("downstream latency =", latency)"""),
 (C, """source := frame.New("source 002: 100 calls, 200 ms each")
source.MustAppend(frame.Row{"strategy": "sequential", "elapsed_s": 20.3, "waits": 20.3 / 0.2})
source.MustAppend(frame.Row{"strategy": "pool 100", "elapsed_s": 4.5, "waits": 4.5 / 0.2})
source.MustAppend(frame.Row{"strategy": "pool 30", "elapsed_s": 2.1, "waits": 2.1 / 0.2})
source.MustAppend(frame.Row{"strategy": "all at once", "elapsed_s": 0.5, "waits": 0.5 / 0.2})
source"""),
 (C, """ctx := cell.Context()
down, err := workload.StartDownstream(ctx, latency)
if err != nil {
	panic(err)
}

type plan struct {
	name    string
	mode    string
	workers int
}
plans := []plan{
	{"sequential", workload.FanSequential, 1},
	{"pool 100", workload.FanPool, 100},
	{"pool 30", workload.FanPool, 30},
	{"all at once", workload.FanAll, 0},
}
measured := frame.New("measured: 100 calls")
for _, p := range plans {
	var fr *workload.FanOutResult
	var ferr error
	fr, ferr = workload.FanOut{URL: down.HealthURL(), Calls: 100, Mode: p.mode, Workers: p.workers}.Run(ctx)
	if ferr != nil {
		panic(ferr)
	}
	measured.MustAppend(frame.Row{
		"strategy":  p.name,
		"errors":    fr.Errors,
		"elapsed_s": fr.Elapsed.Seconds(),
		"waits":     fr.Elapsed.Seconds() / latency.Seconds(),
		"in_flight": fr.Workers,
	})
}
fmt.Println("peak calls in flight at the downstream:", down.PeakInFlight())
down.Close()
measured"""),
 (C, """charts.SourceVsMeasured(source, measured, "waits").LogY()"""),
 (M, """## Why: the waves of a pool

The same clients as modelled Python processes (`cpython.Trace002`): one thread making the checks one
after another, a `ThreadPoolExecutor` of 100 or of 30 threads, and an event loop awaiting them all.
Each row is one check, each bar its wait (`io`) or its wait for a thread of the pool (`thread_wait`):
the pool of 30 goes in four waves (30, 30, 30, 10), the sequential client is a staircase, 100
threads or `gather` take one wave. (The sequential client makes 20 checks here, to keep it short.)"""),
 (C, """clientTrace, err := cpython.Trace002(cell.Context(), latency, []cpython.Case002{
	{Mode: cpython.Sequential, N: 20}, {Mode: cpython.Threads, Workers: 100, N: 100},
	{Mode: cpython.Threads, Workers: 30, N: 100}, {Mode: cpython.AsyncIO, N: 100},
})
if err != nil {
	panic(err)
}
charts.Waterfall(clientTrace)"""),
 *real_section("real002", """
The source's clients as real Python processes — a `requests` loop, `ThreadPoolExecutor` of 100 and of 30,
and `aiohttp` with `asyncio.gather` — against a real FastAPI `/health` that waits the same latency,
next to the model of each client (one thread, a pool of threads, one event loop). Agreement is within
±10 % of [model, model + the real client's own cost at zero wait].""", """
n002 := 100
if os.Getenv("CONCLAB_QUICK") != "" {
	n002 = 40
}
cmp, err := cpython.Compare002(cell.Context(), cpython.Options{}, latency, cpython.Cases002(n002))""", "elapsed_s"),
 (M, """## Shape check

Sequential ≈ 100 waits; a pool of 30 ≈ 4 waves; a pool of 100 and all-at-once ≈ 1 wait. On the
modelled clients' trace, exactly: the pool of 30 makes its checks in waves of 30, 30, 30, 10 and never
more than 30 at once; `gather` makes all 100 at once; the sequential client one at a time.
The source's slow 100-thread pool is not reproduced here: Go's goroutines and loopback
connections are cheap, which is the point the source's arithmetic makes."""),
 (C, """var failed []string
want := map[string][2]float64{"sequential": {90, 130}, "pool 100": {0.9, 3}, "pool 30": {3.6, 7}, "all at once": {0.9, 3}}
for i := 0; i < measured.Len(); i++ {
	name, w := measured.Text("strategy", i), measured.Float("waits", i)
	lim := want[name]
	ok := w >= lim[0] && w <= lim[1] && measured.Float("errors", i) == 0
	fmt.Printf("%-12s %7.2f waits (want %.1f–%.1f): %v\\n", name, w, lim[0], lim[1], ok)
	if !ok {
		failed = append(failed, name)
	}
}
facts := []struct {
	client, waves string
	most          int
}{
	{cpython.Client002Label(cpython.Threads, 30), "[30 30 30 10]", 30},
	{cpython.Client002Label(cpython.Threads, 100), "[100]", 100},
	{cpython.Client002Label(cpython.AsyncIO, 0), "[100]", 100},
	{cpython.Client002Label(cpython.Sequential, 0), "[1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1]", 1},
}
for _, f := range facts {
	evs := bench.EventsOf(clientTrace, f.client)
	got, most := fmt.Sprint(trace.Waves(evs, trace.IO)), trace.MaxOverlap(evs, trace.IO)
	ok := got == f.waves && most == f.most
	fmt.Printf("trace of %-26s %3d at once (want %d), waves %v: %v\\n", f.client, most, f.most, got, ok)
	if !ok {
		failed = append(failed, "trace of "+f.client)
	}
}
if len(failed) > 0 {
	panic(fmt.Sprintf("source 002's shape did NOT hold for %v", failed))
}
fmt.Println("Source 002's shape held: sequential calls add up, a pool of 30 takes four waves, 100 at once take one wait.")"""),
])

nb("000-image-upload", [
 (M, """# 000 — "I made it async; why isn't it faster?" (image upload)

Source 000 (a book chapter) uploads a 1.4 MB 8K JPEG, converts it (RGB, rotate 180° four times,
save) and inserts the output path into MySQL — about 100 ms of work — under four handler styles:
`sync` (`def` on the 40-thread pool), `asyncio` (the CPU work runs on the event loop),
`ThreadPool` (`run_in_executor` on threads; the GIL limits parallelism) and `ProcessPool`
(a process pool; arguments and results cross a pipe). k6: 20 VUs, 10 s, `sleep(1)` between uploads.

Findings: asyncio is slowest (~5.5x sync); ThreadPool ≈ sync; ProcessPool pays IPC; nothing is
dramatically faster than sync — the work is CPU, and `async` only helps I/O waits.

The real 8K pipeline takes about 1 s on this shared 2-core machine, so the work is modelled with
calibrated steps (docs/strategies.md): 100 ms of CPU, of which 20 ms holds the GIL and 80 ms runs
GIL-free like Pillow's C code, then a 5 ms insert. 10 VUs keep the load under the machine's two cores.
`--quick` runs 3 s instead of 10 s; the per-request work is unchanged."""),
 (C, """import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

duration := 10 * time.Second
if os.Getenv("CONCLAB_QUICK") != "" {
	duration = 3 * time.Second
}
fmt.Println("duration =", duration)"""),
 (C, """source := frame.New("source 000: 8K JPEG upload, k6 20 VUs")
source.MustAppend(frame.Row{"strategy": "sync", "avg_ms": 257.0, "p95_ms": 404.0, "rps": 15.7})
source.MustAppend(frame.Row{"strategy": "asyncio", "avg_ms": 1420.0, "p95_ms": 1440.0, "rps": 8.2})
source.MustAppend(frame.Row{"strategy": "ThreadPool", "avg_ms": 215.0, "p95_ms": 347.0, "rps": 16.1})
source.MustAppend(frame.Row{"strategy": "ProcessPool", "avg_ms": 313.0, "p95_ms": 570.0, "rps": 14.9})
source"""),
 (C, """strategies, err := bench.Presets("sync", "asyncio", "ThreadPool", "ProcessPool")
if err != nil {
	panic(err)
}
res, err := bench.Run(cell.Context(), bench.Experiment{
	Name:       "000: image upload",
	Strategies: strategies,
	Workload:   bench.Steps(bench.Burn(20*time.Millisecond), bench.BurnNoGIL(80*time.Millisecond), bench.Sleep(5*time.Millisecond)),
	Load:       load.Closed{VUs: 10, Duration: duration, Think: time.Second},
	Pause:      100 * time.Millisecond,
})
if err != nil {
	panic(err)
}
sum, err := res.Summary.Select("strategy", "count", "errors", "rps", "avg_ms", "med_ms", "p95_ms", "max_ms", "cpu_s", "gil_wait_ms", "loop_blocked_max_ms")
if err != nil {
	panic(err)
}
sum"""),
 (C, """charts.SourceVsMeasured(source, res.Summary, "avg_ms")"""),
 (C, """charts.Latency(res.Summary)"""),
 (M, """## Why: the blocked loop, the GIL and the pools

The trace of every request (sampled evenly when there are many). `asyncio` runs the conversion *on*
the event loop: each upload waits in `queue` for the loop while another's conversion (`cpu`, then
`cpu_nogil`) blocks it. `sync` runs each upload on one of AnyIO's threads; `ThreadPool` waits for one
of the executor's min(32, CPUs + 4) threads (`executor_wait`); `ProcessPool` sends the work to a worker
process (`pool`). In all the thread styles the 20 ms that hold the GIL take turns (`gil_wait`)."""),
 (C, """charts.Waterfall(res.Trace)"""),
 (M, """Per thread: the event loop's lane for `asyncio` is blocked (top third) for a whole conversion per
upload; the threads' GIL turns sit in the bottom third, never two of one process at once."""),
 (C, """charts.Lanes(res.Trace)"""),
 *real_section("real000", """
The source's app — four `/commiter/upload_*` endpoints in FastAPI, Pillow doing the conversion, the
path inserted into SQLite (or MySQL with `CONCLAB_MYSQL_DSN`) — under real uvicorn, loaded by k6-style
closed VUs uploading a generated image. The model runs the per-step costs calibrated on the same
image with this machine's CPython first (the Pillow pipeline's CPU time and the share that holds the
GIL), so both sides do the same amount of work. A 1920x1080 image keeps the run short; agreement is
within ±25 % on throughput and mean latency, and both should put asyncio last.""", """
upDur := 5 * time.Second
if os.Getenv("CONCLAB_QUICK") != "" {
	upDur = 1500 * time.Millisecond
}
cmp, err := cpython.Compare000Upload(cell.Context(), cpython.Options{}, nil, nil, cpython.ImageSize{Width: 1920, Height: 1080}, 8, upDur, 200*time.Millisecond)""", "avg_ms"),
 (M, """## The source's machine, modelled

The model can also run the source's own machine: `cpython.SourceMachine` states the M1 laptop's
figures — 8 CPUs (so the app's `ThreadPoolExecutor()` has min(32, 8 + 4) = 12 threads and a
`ProcessPoolExecutor()` 8 workers),
about 100 ms per 8K image, a 5 ms insert — and builds each strategy's handler from them, here with 20 %
of the image work holding the GIL as above. The source's k6 script runs against it: 20 VUs, `sleep(1)`
between uploads. The cores are still this machine's two — 20 VUs at 100 ms of CPU a second need about
1.8 of them, so every strategy's latency includes some waiting for a core — and only the pool sizes
and costs are the source's; what should carry over is the ordering, asyncio the slowest, which the
shape check below also requires of this model."""),
 (C, """srcMachine := cpython.SourceMachine(0.2)
srcHandlers := srcMachine.Handlers000()
srcDur := duration
if os.Getenv("CONCLAB_QUICK") != "" {
	srcDur = 2 * time.Second
}
srcModel := frame.New("model of the source's machine: 8 CPUs, 100 ms per image, k6 20 VUs")
for _, name := range cpython.Strategies000 {
	var f *frame.Frame
	var merr error
	f, merr = cpython.ModelClosedVUs(cell.Context(), name, pymodel.Config{CPUs: srcMachine.CPUs}, 1, srcHandlers[name], 20, srcDur, time.Second)
	if merr != nil {
		panic(merr)
	}
	srcModel, merr = frame.Concat(srcModel.Name, srcModel, f)
	if merr != nil {
		panic(merr)
	}
}
srcShown, err := srcModel.Select("strategy", "count", "errors", "rps", "avg_ms", "p95_ms", "max_ms")
if err != nil {
	panic(err)
}
srcShown"""),
 (C, """charts.SourceVsMeasured(source, srcModel, "avg_ms").Title("Source vs the model of the source's machine: avg (ms)")"""),
 (M, """## Shape check

asyncio is the slowest and blocks its loop for a whole conversion; ThreadPool is no faster than sync
and at most 2.5x slower — its executor has min(32, CPUs + 4) = 6 threads on this 2-CPU machine for
10 VUs, where the source's 8-core laptop had 12, so a few uploads queue for a thread; nothing is dramatically (more than 3x) faster than sync. Unlike the source, ProcessPool usually comes out
somewhat *faster* than sync here (1.5–2x): as in the source's code, the pool is sent two file
paths (`convert_image(image_path, output_path)`), not the 1.4 MB image, so the pipe costs little,
and its workers hold no GIL — a difference worth knowing, not hiding."""),
 (C, """var failed []string
avg := map[string]float64{}
for i := 0; i < res.Summary.Len(); i++ {
	avg[res.Summary.Text("strategy", i)] = res.Summary.Float("avg_ms", i)
	if res.Summary.Float("errors", i) != 0 {
		failed = append(failed, "errors in "+res.Summary.Text("strategy", i))
	}
}
check := func(what string, ok bool, got float64) {
	fmt.Printf("%-45s %7.2f: %v\\n", what, got, ok)
	if !ok {
		failed = append(failed, what)
	}
}
slowest := avg["asyncio"] > avg["sync"] && avg["asyncio"] > avg["ThreadPool"] && avg["asyncio"] > avg["ProcessPool"]
check("asyncio slowest (asyncio avg / sync avg)", slowest && avg["asyncio"] > 1.2*avg["sync"], avg["asyncio"]/avg["sync"])
blocked := res.Summary.Where("strategy", "asyncio").Float("loop_blocked_max_ms", 0)
check("asyncio loop blocked for a conversion (max ms)", blocked >= 80, blocked)
// From the trace, exactly: every asyncio conversion (its GIL-free part
// included) ran inside a callback that blocked the loop, and no process
// ever had two GIL holders.
asyncEvs := bench.EventsOf(res.Trace, "asyncio")
in, all := trace.Within(asyncEvs, trace.CPUNoGIL, trace.LoopBlocked)
check("asyncio conversions inside a blocked loop (share)", in == all && all > 0, float64(in)/math.Max(float64(all), 1))
for _, name := range []string{"sync", "asyncio", "ThreadPool", "ProcessPool"} {
	most := trace.MaxOverlapPerWorker(bench.EventsOf(res.Trace, name), trace.GIL)
	check("GIL holders at once: "+name, most == 1, float64(most))
}
r := avg["ThreadPool"] / avg["sync"]
check("ThreadPool ≈ sync (avg ratio 0.5–2.5)", r >= 0.5 && r <= 2.5, r)
best := avg["sync"]
for _, v := range avg {
	if v < best {
		best = v
	}
}
check("nothing > 3x faster than sync (sync / best)", avg["sync"]/best <= 3, avg["sync"]/best)
srcAvg := map[string]float64{}
for i := 0; i < srcModel.Len(); i++ {
	srcAvg[srcModel.Text("strategy", i)] = srcModel.Float("avg_ms", i)
}
srcSlowest := srcAvg["asyncio"] > srcAvg["sync"] && srcAvg["asyncio"] > srcAvg["ThreadPool"] && srcAvg["asyncio"] > srcAvg["ProcessPool"]
check("source's machine: asyncio slowest (asyncio / sync)", srcSlowest, srcAvg["asyncio"]/srcAvg["sync"])
if len(failed) > 0 {
	panic(fmt.Sprintf("source 000's shape did NOT hold for %v", failed))
}
fmt.Println("Source 000's shape held: CPU work on the event loop makes asyncio the slowest; threads and processes are no dramatic win over sync.")"""),
])

nb("000-print", [
 (M, """# 000 — `print()` per request (the chapter's recap)

Before the image upload, source 000 recaps its previous chapter: a FastAPI app under uvicorn with
`PYTHONUNBUFFERED=1`, so every `print()` is a `write()` system call made on the event loop. k6, 100 VUs
for 10 s:

| endpoint | avg | req/s |
|---|---|---|
| `doPrint` (sync print) | 2,160 ms | 29 |
| `doPrintAsync` (async print) | 411 ms | 70.8 |
| `dontPrint` (no print) | 15.4 ms | 98 |

The question: why does one line of logging per step make an `async def` server slow? Because the
handler never awaits: each `write()` blocks the one event loop, and every other request waits behind
it. Here three `async def` handlers print the same lines for real — a `write(2)` per line into a pipe
(a terminal that keeps up), lines queued for one background writer that batches them, or nothing — and
closed VUs load them. The source's code for this chapter is not in the excerpt; this is the lab's
reading of "sync print" vs "async print". `--quick` runs 20 VUs for 1.5 s instead of 100 VUs for 10 s."""),
 (C, """import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/bench/workload"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

vus, duration, lines := 100, 10*time.Second, 1000
if os.Getenv("CONCLAB_QUICK") != "" {
	vus, duration = 20, 1500*time.Millisecond
}
fmt.Printf("%d VUs for %v, %d lines printed per request\\n", vus, duration, lines)"""),
 (M, "## The source's table"),
 (C, """source := frame.New("source 000: print per request, k6 100 VUs 10 s")
source.MustAppend(frame.Row{"strategy": "/doPrint", "avg_ms": 2160.0, "rps": 29.0, "rps_vs_none": 29.0 / 98})
source.MustAppend(frame.Row{"strategy": "/doPrintAsync", "avg_ms": 411.0, "rps": 70.8, "rps_vs_none": 70.8 / 98})
source.MustAppend(frame.Row{"strategy": "/dontPrint", "avg_ms": 15.4, "rps": 98.0, "rps_vs_none": 1.0})
source"""),
 (M, """## Measured

One printer per endpoint (`workload.NewPrinter`: `sync` is a `write(2)` per line, `async` a queue drained
by one writer, `none` nothing), each wrapped as the handler's step with `strategy.Print`. All three
servers are the same `async def` handler style; only what the handler does differs, so each strategy
gets its own workload."""),
 (C, """// runPrint opens a pipe per printing endpoint (a terminal that keeps up
// with its output) and a printer per endpoint, runs the experiment, and
// closes printers before their pipes whatever happens.
runPrint := func() (*bench.Result, error) {
	syncSink, err := workload.OpenSink("pipe")
	if err != nil {
		return nil, err
	}
	defer syncSink.Close()
	asyncSink, err := workload.OpenSink("pipe")
	if err != nil {
		return nil, err
	}
	defer asyncSink.Close()
	syncPrinter, err := workload.NewPrinter(workload.PrintSync, syncSink, 0)
	if err != nil {
		return nil, err
	}
	defer syncPrinter.Close()
	asyncPrinter, err := workload.NewPrinter(workload.PrintAsync, asyncSink, 0)
	if err != nil {
		return nil, err
	}
	defer asyncPrinter.Close()
	nonePrinter, err := workload.NewPrinter(workload.PrintNone, nil, 0)
	if err != nil {
		return nil, err
	}
	defer nonePrinter.Close()
	strategies, err := bench.Presets("/doPrint", "/doPrintAsync", "/dontPrint")
	if err != nil {
		return nil, err
	}
	return bench.Run(cell.Context(), bench.Experiment{
		Name:       "000: print per request",
		Strategies: strategies,
		Workloads: map[string]pymodel.Workload{
			"/doPrint":      bench.Steps(strategy.Print(syncPrinter, lines, "doPrint line")),
			"/doPrintAsync": bench.Steps(strategy.Print(asyncPrinter, lines, "doPrintAsync line")),
			"/dontPrint":    bench.Steps(strategy.Print(nonePrinter, lines, "dontPrint line")),
		},
		Load:  load.Closed{VUs: vus, Duration: duration},
		Pause: 100 * time.Millisecond,
	})
}
res, err := runPrint()
if err != nil {
	panic(err)
}
none := res.Summary.Where("strategy", "/dontPrint").Float("rps", 0)
measured := frame.New("measured: print per request")
for i := 0; i < res.Summary.Len(); i++ {
	measured.MustAppend(frame.Row{
		"strategy":            res.Summary.Text("strategy", i),
		"count":               res.Summary.Float("count", i),
		"errors":              res.Summary.Float("errors", i),
		"avg_ms":              res.Summary.Float("avg_ms", i),
		"p95_ms":              res.Summary.Float("p95_ms", i),
		"rps":                 res.Summary.Float("rps", i),
		"rps_vs_none":         res.Summary.Float("rps", i) / none,
		"loop_blocked_ms":     res.Summary.Float("loop_blocked_ms", i),
		"loop_blocked_max_ms": res.Summary.Float("loop_blocked_max_ms", i),
	})
}
measured"""),
 (M, """Throughput relative to `dontPrint` compares the source's laptop with this machine: absolute req/s
depend on the machine and on how many lines a request prints, the ratio much less."""),
 (C, """charts.SourceVsMeasured(source, measured, "rps_vs_none")"""),
 (C, """charts.Latency(res.Summary).LogY()"""),
 (M, """## Why: the blocked loop

The trace, request by request (an even sample of them): a `/doPrint` request spends almost all its
time in `queue`, waiting for the event loop, while other requests' `write` calls — a thousand
`write(2)`s each, made *on* the loop — block it. `/doPrintAsync` puts its lines on a queue (a little
`cpu` on the loop) and `/dontPrint` does nothing, so their requests barely queue."""),
 (C, """charts.Waterfall(res.Trace)"""),
 (M, """The loop's own lane: for `/doPrint` it is blocked (top third) back to back, each callback one
request's writes; the other two loops are mostly free."""),
 (C, """charts.Lanes(res.Trace)"""),
 *real_section("realPrint", """
The same three endpoints as a real FastAPI app under uvicorn with `PYTHONUNBUFFERED=1` (its stdout a
log file), next to the model's three servers, both loaded by the same closed-VU client. CPython spends
far more per request than the model's Go, so the absolute figures differ; what must agree is the
source's finding — `/doPrint` is the slowest endpoint, the other two faster.""", """
realVUs, realDur := 20, 2*time.Second
if os.Getenv("CONCLAB_QUICK") != "" {
	realVUs, realDur = vus, duration
}
cmp, err := cpython.Compare000Print(cell.Context(), cpython.Options{}, lines, realVUs, realDur)""", "avg_ms"),
 (M, """## Shape check

The source's shape: printing a line per `write()` on the event loop is the slowest (its throughput well
under the no-print endpoint's), the async writer does clearly better than it, and `doPrint` blocks the
event loop for much longer per request than the handler that prints nothing."""),
 (C, """var failed []string
row := func(name string) int {
	for i := 0; i < measured.Len(); i++ {
		if measured.Text("strategy", i) == name {
			return i
		}
	}
	panic("no row for " + name)
}
check := func(what string, ok bool, got float64) {
	fmt.Printf("%-48s %8.2f: %v\\n", what, got, ok)
	if !ok {
		failed = append(failed, what)
	}
}
sp, ap, np := row("/doPrint"), row("/doPrintAsync"), row("/dontPrint")
blockedPer := func(i int) float64 { return measured.Float("loop_blocked_ms", i) / measured.Float("count", i) }
for i := 0; i < measured.Len(); i++ {
	if measured.Float("errors", i) != 0 || measured.Float("count", i) == 0 {
		failed = append(failed, "errors or no requests on "+measured.Text("strategy", i))
	}
}
check("doPrint throughput / dontPrint (want < 0.5)", measured.Float("rps_vs_none", sp) < 0.5, measured.Float("rps_vs_none", sp))
check("doPrint avg / doPrintAsync avg (want > 1.5)", measured.Float("avg_ms", sp) > 1.5*measured.Float("avg_ms", ap), measured.Float("avg_ms", sp)/measured.Float("avg_ms", ap))
check("doPrintAsync throughput / dontPrint (want > doPrint's)", measured.Float("rps_vs_none", ap) > measured.Float("rps_vs_none", sp), measured.Float("rps_vs_none", ap))
check("loop blocked per request: doPrint / dontPrint (want > 2)", blockedPer(sp) > 2*blockedPer(np), blockedPer(sp)/(blockedPer(np)+0.000001))
// From the trace, exactly: every doPrint request's writes ran inside a
// callback that blocked the loop (the loop blocked for the whole of each
// blocking step).
in, all := trace.Within(bench.EventsOf(res.Trace, "/doPrint"), trace.Write, trace.LoopBlocked)
check("doPrint writes inside a blocked loop (share, want 1)", in == all && all > 0, float64(in)/(float64(all)+1e-9))
if len(failed) > 0 {
	panic(fmt.Sprintf("source 000's print shape did NOT hold for %v", failed))
}
fmt.Println("Source 000's print shape held: a write() per line on the event loop makes doPrint the slowest; an async writer and no print are both far faster.")"""),
])

nb("004-db-order", [
 (M, """# 004 — sync and async clients x sync and async apps, and the order of the rows

Source 004 (a blog post on asyncio with pytest) sends 26 POSTs — emails `A@A` … `Z@Z` plus a password —
to an app that inserts each into MySQL, and looks at the time and at the order the rows landed in:

| client / app | time | rows in the DB |
|---|---|---|
| sync client / sync app | ~18 s | in order A..Z |
| "async" client calling a blocking HTTP library inside `async def` / sync app | ~19 s | in order |
| real async client (aiohttp) / sync app | ~20 % of sync (~3.6 s) | shuffled |
| sync client / async app (async DB session) | ~16 s | in order |
| async client / async app | > 4 s | shuffled |

The finding: `async def` without an awaitable I/O call gains nothing, and the row order shows whether
requests really overlapped. Here the model runs both apps (a `def` handler on the thread pool, an
`async def` handler awaiting its database) with a wait inside each insert standing in for the source's
slow database (~0.7 s a request; 100 ms here, 30 ms with `--quick`), inserting into SQLite — or into
MariaDB/MySQL when `CONCLAB_MYSQL_DSN` is set — and each client posts for real over HTTP from a modelled
Python process: one thread in a loop, coroutines around a blocking call, or coroutines awaiting aiohttp."""),
 (C, """import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

delay := 100 * time.Millisecond
if os.Getenv("CONCLAB_QUICK") != "" {
	delay = 30 * time.Millisecond
}
dsn := os.Getenv("CONCLAB_MYSQL_DSN")
backend := "SQLite"
if dsn != "" {
	backend = "MariaDB/MySQL"
}
fmt.Println("wait inside each insert =", delay, "; database:", backend)"""),
 (M, "## The source's table"),
 (C, """source := frame.New("source 004: 26 posts")
source.MustAppend(frame.Row{"strategy": "sync client / sync app", "elapsed_s": 18.0, "vs_sync": 1.0, "rows": "in order"})
source.MustAppend(frame.Row{"strategy": "async def + requests / sync app", "elapsed_s": 19.0, "vs_sync": 19.0 / 18, "rows": "in order"})
source.MustAppend(frame.Row{"strategy": "aiohttp client / sync app", "elapsed_s": 3.6, "vs_sync": 0.2, "rows": "shuffled"})
source.MustAppend(frame.Row{"strategy": "sync client / async app", "elapsed_s": 16.0, "vs_sync": 16.0 / 18, "rows": "in order"})
source.MustAppend(frame.Row{"strategy": "aiohttp client / async app", "elapsed_s": 4.0, "vs_sync": 4.0 / 18, "rows": "shuffled"})
source"""),
 (M, """## Measured on the model

Every client against every app; `order` is the first letter of each row in the order the rows reached
the database, `in_order` is 1 when that is A..Z, as sent."""),
 (C, """model, appTrace, err := cpython.Model004Traced(cell.Context(), dsn, delay, 26)
if err != nil {
	panic(err)
}
shown, err := model.Select("strategy", "errors", "elapsed_s", "vs_sync", "rows", "order", "in_order")
if err != nil {
	panic(err)
}
shown"""),
 (C, """charts.SourceVsMeasured(source, model, "vs_sync")"""),
 (M, """## Why: overlap or none, next to the row order

The apps' trace, one row per post in the order it reached the app: a client that posts one at a time
gives a staircase on either app — each post's handler starts when the one before has answered, so
the rows land A..Z — and the `async def` around a blocking `requests` call is the same staircase.
Only aiohttp's posts overlap: their handlers run side by side, waiting together, and the inserts land
in whatever order the waits end."""),
 (C, """orders, err := model.Select("strategy", "order", "in_order")
if err != nil {
	panic(err)
}
display.Show(orders)
charts.WaterfallRows(appTrace, 160)"""),
 *real_section("real004", """
The source's two apps as real FastAPI apps under uvicorn (PyMySQL in a `def` handler; an `async def`
handler awaiting aiomysql, or `asyncio.to_thread` for SQLite), each hit by the source's three clients as
real Python processes (`requests` in a loop, `requests` inside gathered coroutines, `aiohttp` gathered),
next to the model. Agreement on the time is within ±10 % of [model, model + the real stack's cost at zero
wait]; the row orders of both sides are in the table.""", """
cmp, err := cpython.Compare004(cell.Context(), cpython.Options{}, &cpython.DB{MySQLDSN: dsn}, delay, 26)""", "elapsed_s", ', "model_order", "real_order"'),
 (M, """## Shape check

Clients that send one post at a time take 26 waits and leave the rows in order, on either app — the
coroutines around a blocking library included; the aiohttp client overlaps its posts and takes a fraction
of that on both apps. Whether overlapping rows land shuffled is shown, not required: on the async app one
event loop serves the posts first in, first out, so they can land nearly in order."""),
 (C, """var failed []string
seq := 26 * delay.Seconds()
for i := 0; i < model.Len(); i++ {
	name, el := model.Text("strategy", i), model.Float("elapsed_s", i)
	ok := model.Float("errors", i) == 0 && model.Float("rows", i) == 26
	want := "≈ 26 waits, in order"
	if model.Text("client", i) == "aiohttp client" {
		want = "under a quarter of 26 waits"
		ok = ok && el < 0.25*seq
	} else {
		ok = ok && model.Float("in_order", i) == 1 && el >= 0.95*seq && el <= 1.6*seq
	}
	shuffled := "in order"
	if model.Float("in_order", i) != 1 {
		shuffled = "shuffled"
	}
	fmt.Printf("%-34s %6.2f waits, rows %-8s (want %s): %v\\n", name, el/delay.Seconds(), shuffled, want, ok)
	if !ok {
		failed = append(failed, name)
	}
}
// From the apps' trace: posts sent one at a time never overlap in the app;
// aiohttp's do.
for i := 0; i < model.Len(); i++ {
	name := model.Text("strategy", i)
	most := trace.MaxOverlap(bench.EventsOf(appTrace, name), trace.Handler)
	ok := most == 1
	want := "1"
	if model.Text("client", i) == "aiohttp client" {
		ok, want = most > 1, "> 1"
	}
	fmt.Printf("%-34s handlers at once in the app: %2d (want %s): %v\\n", name, most, want, ok)
	if !ok {
		failed = append(failed, name+" overlap")
	}
}
if len(failed) > 0 {
	panic(fmt.Sprintf("source 004's shape did NOT hold for %v", failed))
}
fmt.Println("Source 004's shape held: async def around a blocking client gains nothing; only a client that awaits overlaps the posts, and the row order shows it.")"""),
])

nb("go-native", [
 (M, """# Go-native strategies

The same questions answered the Go way. First Go's own server styles instead of the Python model: a
goroutine per request, a semaphore of 10, and one request at a time; 100 requests arrive at once, each
waiting on I/O (100 ms; 20 ms with `--quick`). Arithmetic: goroutines ≈ 1 wait, bounded 10 ≈ 10 waves,
serial ≈ 100 waits, plus a fixed cost for 100 connections that the cell measures with no wait. Then source 002's fan-out written in a cell with goroutines, an errgroup-style first
error, and a semaphore; and CPU work, where goroutines use every core — there is no GIL — as far as
`GOMAXPROCS` lets them."""),
 (C, """import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/workload"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/kernel/cell"
)

wait := 100 * time.Millisecond
if os.Getenv("CONCLAB_QUICK") != "" {
	wait = 20 * time.Millisecond
}
strategies, err := bench.Presets("goroutines", "bounded 10", "serial")
if err != nil {
	panic(err)
}
res, err := bench.Run(cell.Context(), bench.Experiment{
	Name:       "Go-native: burst of 100 I/O waits",
	Strategies: strategies,
	Workload:   bench.Steps(bench.Sleep(wait)),
	Load:       load.Burst{N: 100},
})
if err != nil {
	panic(err)
}
// The fixed cost: the same burst with nothing to wait on (connections,
// parsing, scheduling). The shape check subtracts it, so a busy machine's
// overhead is not counted as waits.
zeroWait, err := bench.Run(cell.Context(), bench.Experiment{
	Name:       "Go-native: burst of 100, no wait",
	Strategies: strategies[:1],
	Workload:   bench.Steps(), // answered at once
	Load:       load.Burst{N: 100},
})
if err != nil {
	panic(err)
}
fixedCost := zeroWait.Summary.Float("elapsed_s", 0)
fmt.Printf("fixed cost of a burst of 100 with no wait: %.1f ms\\n", fixedCost*1000)
sum, err := res.Summary.Select("strategy", "count", "errors", "elapsed_s", "avg_ms", "max_ms")
if err != nil {
	panic(err)
}
sum"""),
 (C, """charts.Latency(res.Summary)"""),
 (M, """## Fan-out the Go way

Source 002's client in Go: 100 calls to a downstream that waits, all at once (a goroutine each, the
first error cancelling the rest, as `errgroup` does), through a semaphore (a buffered channel) of 30 or
10, or one at a time; then one failing call among 99 slow ones, which must cancel the rest. The code is
the cell's own: nothing hidden."""),
 (C, """// fanOut makes n calls, call i to urlFor(i), with at most limit calls in
// flight (0: no limit). The first failure cancels the calls still running
// and is returned, as errgroup.Group does.
fanOut := func(ctx context.Context, urlFor func(i int) string, n, limit int) (time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	sem := make(chan struct{}, n)
	if limit > 0 {
		sem = make(chan struct{}, limit)
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			_, callErr := workload.CallDownstream(ctx, nil, urlFor(i))
			if callErr != nil {
				once.Do(func() {
					firstErr = callErr
					cancel()
				})
			}
		}(i)
	}
	wg.Wait()
	return time.Since(start), firstErr
}

// fanFixed is the fixed cost of 100 calls at once that do not wait; runFan
// measures it.
var fanFixed float64

// runFan runs the four fan-outs against one downstream, and the
// errgroup check: 99 calls that would wait 2 s and one that fails at once.
// The downstream is closed whatever happens.
runFan := func(ctx context.Context) (*frame.Frame, time.Duration, error, error) {
	down, err := workload.StartDownstream(ctx, wait)
	if err != nil {
		return nil, 0, nil, err
	}
	defer down.Close()
	base := down.HealthURL()
	health := func(i int) string { return base }
	fan := frame.New("Go fan-out: 100 calls")
	for _, limit := range []int{0, 30, 10, 1} {
		name := fmt.Sprintf("semaphore %d", limit)
		if limit == 0 {
			name = "all at once (errgroup)"
		} else if limit == 1 {
			name = "one at a time"
		}
		el, ferr := fanOut(ctx, health, 100, limit)
		if ferr != nil {
			return nil, 0, nil, ferr
		}
		fan.MustAppend(frame.Row{"strategy": name, "limit": limit, "elapsed_s": el.Seconds(), "waits": el.Seconds() / wait.Seconds()})
	}
	oneBad := func(i int) string {
		if i == 50 {
			return base + "?ms=oops" // answered 400 at once
		}
		return base + "?ms=2000"
	}
	badEl, badErr := fanOut(ctx, oneBad, 100, 0)
	// The fixed cost of 100 calls at once that do not wait.
	zero := func(i int) string { return base + "?ms=0" }
	zeroEl, zerr := fanOut(ctx, zero, 100, 0)
	if zerr != nil {
		return nil, 0, nil, zerr
	}
	fanFixed = zeroEl.Seconds()
	return fan, badEl, badErr, nil
}
fan, badEl, badErr, err := runFan(cell.Context())
if err != nil {
	panic(err)
}
fmt.Printf("one failing call among 99 slow ones: %v after %v (the others would take 2 s)\\n", badErr, badEl.Round(time.Millisecond))
fmt.Printf("fixed cost of 100 calls at once with no wait: %.1f ms\\n", fanFixed*1000)
fan"""),
 (C, """// One line: how long 100 calls take against how many may be in flight.
fanLine := frame.New("Go fan-out: 100 calls")
for i := 0; i < fan.Len(); i++ {
	inFlight := fan.Float("limit", i)
	if inFlight == 0 {
		inFlight = 100
	}
	fanLine.MustAppend(frame.Row{"strategy": "Go fan-out", "in_flight": inFlight, "waits": fan.Float("waits", i)})
}
charts.Sweep(fanLine, "in_flight", "waits").LogX().LogY()"""),
 (M, """## CPU: goroutines and GOMAXPROCS

Twenty requests at once, each burning 40 ms of CPU (20 ms with `--quick`) on the goroutine strategy,
with `GOMAXPROCS` set to 1 and then to every CPU. With one P the burns run one after another, as under a
GIL; with two they overlap. `bench.MeasureCPU` reads the operating system's scheduler statistics of the
process's threads while the burst runs: `cpus_given` is how many CPUs the burst got on average, and
`threads_ready` how many threads were running *or waiting for a CPU* — the runtime's parallelism, which
other processes on a busy machine cannot change (they can only lower `cpus_given` and the speed-up)."""),
 (C, """burn := 40 * time.Millisecond
if os.Getenv("CONCLAB_QUICK") != "" {
	burn = 20 * time.Millisecond
}
goroutines, err := bench.Presets("goroutines")
if err != nil {
	panic(err)
}
// burstWith runs the burst under GOMAXPROCS=procs and returns its row.
waitKnown := true
burstWith := func(procs int) frame.Row {
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	var r *bench.Result
	use, err := bench.MeasureCPU(func() error {
		var runErr error
		r, runErr = bench.Run(cell.Context(), bench.Experiment{
			Name:       fmt.Sprintf("GOMAXPROCS=%d", procs),
			Strategies: goroutines,
			Workload:   bench.Steps(bench.BurnNoGIL(burn)),
			Load:       load.Burst{N: 20},
		})
		return runErr
	})
	if err != nil {
		panic(err)
	}
	el := r.Summary.Float("elapsed_s", 0)
	waitKnown = waitKnown && use.Waiting >= 0
	return frame.Row{"strategy": fmt.Sprintf("GOMAXPROCS=%d", procs), "gomaxprocs": procs, "elapsed_s": el,
		"serial_burns": el / burn.Seconds(), "cpus_given": use.Parallelism(), "threads_ready": use.Demand()}
}
cpus := runtime.NumCPU()
cpuFrame := frame.New("goroutines: 20 CPU burns at once")
cpuFrame.MustAppend(burstWith(1))
cpuFrame.MustAppend(burstWith(cpus))
cpuFrame"""),
 (M, "## Shape check"),
 (C, """want := map[string][2]float64{"goroutines": {0.9, 4}, "bounded 10": {9, 14}, "serial": {90, 130}}
var failed []string
for i := 0; i < res.Summary.Len(); i++ {
	name := res.Summary.Text("strategy", i)
	el := res.Summary.Float("elapsed_s", i)
	w := el / wait.Seconds()
	// At least the arithmetic's waits; above it, the burst's fixed cost
	// (measured with no wait) is not counted against the strategy.
	wNet := (el - fixedCost) / wait.Seconds()
	lim := want[name]
	ok := w >= lim[0] && wNet <= lim[1] && res.Summary.Float("errors", i) == 0
	fmt.Printf("%-24s %7.2f waits, %6.2f less the fixed cost (want %.1f–%.1f): %v\\n", name, w, wNet, lim[0], lim[1], ok)
	if !ok {
		failed = append(failed, name)
	}
}
wantFan := map[int][2]float64{0: {0.9, 4}, 30: {3.6, 7}, 10: {9, 14}, 1: {90, 130}}
for i := 0; i < fan.Len(); i++ {
	lim := wantFan[int(fan.Float("limit", i))]
	w := fan.Float("waits", i)
	wNet := (fan.Float("elapsed_s", i) - fanFixed) / wait.Seconds()
	ok := w >= lim[0] && wNet <= lim[1]
	fmt.Printf("%-24s %7.2f waits, %6.2f less the fixed cost (want %.1f–%.1f): %v\\n", fan.Text("strategy", i), w, wNet, lim[0], lim[1], ok)
	if !ok {
		failed = append(failed, fan.Text("strategy", i))
	}
}
okBad := badErr != nil && badEl < time.Second
fmt.Printf("%-24s %7.2f s (want an error well before the 2 s calls end): %v\\n", "first error cancels", badEl.Seconds(), okBad)
if !okBad {
	failed = append(failed, "the first error did not cancel the fan-out")
}
// CPU: the arithmetic's lower bounds on elapsed time, and the runtime's
// parallelism (threads running or waiting for a CPU), which the machine's
// other load cannot change. The wall-clock speed-up is shown, not judged:
// on a busy shared machine the second core may be taken.
one := cpuFrame.Float("serial_burns", 0)
okOne := one >= 18
fmt.Printf("%-24s %7.2f burns (want ≥ 18: twenty burns, one at a time): %v\\n", "GOMAXPROCS=1", one, okOne)
if !okOne {
	failed = append(failed, "GOMAXPROCS=1 took less than its burns")
}
switch {
case !waitKnown:
	fmt.Println("(this system does not report run-queue waits: the CPU parallelism is not judged)")
case cpus >= 2:
	w1, wAll := cpuFrame.Float("threads_ready", 0), cpuFrame.Float("threads_ready", 1)
	okAll := wAll >= 1.6
	fmt.Printf("%-24s %7.2f threads ready (shown: with one P the burns take turns)\\n", "GOMAXPROCS=1", w1)
	fmt.Printf("%-24s %7.2f threads ready (want ≥ 1.6 with %d CPUs: burns in parallel): %v\\n", fmt.Sprintf("GOMAXPROCS=%d", cpus), wAll, cpus, okAll)
	if !okAll {
		failed = append(failed, "CPU parallelism")
	}
	speedup := cpuFrame.Float("elapsed_s", 0) / cpuFrame.Float("elapsed_s", 1)
	fmt.Printf("%-24s %7.2f (%.2f CPUs given, %.2f threads ready; source: 1.6–1.8x)\\n", "wall-clock speed-up", speedup, cpuFrame.Float("cpus_given", 1), wAll)
}
if len(failed) > 0 {
	panic(fmt.Sprintf("the Go-native shape did NOT hold for %v", failed))
}
fmt.Println("Shape held: goroutines take one wait, a semaphore of N takes 100/N waves, serial a hundred waits; CPU work spreads over every P that GOMAXPROCS allows.")"""),
])

nb("byo-server", [
 (M, """# Bring your own server

`bench/load` drives any HTTP server on loopback. Set `yourURL` in the next cell to your own
app's (e.g. `http://127.0.0.1:8000/work` for a uvicorn you started; or run the notebook with
`CONCLAB_BYO_URL` set): the same burst goes to it and its row joins the table and the chart.
Other hosts are refused unless you add `AllowRemote: true` to the options.

So that this notebook runs headless, it also starts two small servers itself: one handles
requests concurrently, the other behind a mutex — one at a time, like the `/async-block` bug.
Each request waits 500 ms (100 ms with `--quick`); 10 requests arrive at once."""),
 (C, """// Your server's URL; "" measures only the two demo servers below.
yourURL := ""
if yourURL == "" {
	yourURL = os.Getenv("CONCLAB_BYO_URL")
}"""),
 (C, """import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/kernel/cell"
)

wait := 500 * time.Millisecond
if os.Getenv("CONCLAB_QUICK") != "" {
	wait = 100 * time.Millisecond
}

var mu sync.Mutex
concurrent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	time.Sleep(wait)
	fmt.Fprintln(w, "ok")
})
serialised := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	mu.Lock()
	time.Sleep(wait)
	mu.Unlock()
	fmt.Fprintln(w, "ok")
})"""),
 (C, """// serve starts h on a loopback port, sends the burst, and closes the server.
func serve(ctx context.Context, name string, h http.Handler) (*frame.Frame, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/work"
	r, err := load.Run(ctx, load.Target{URL: url}, load.Burst{N: 10}, load.Options{Strategy: name, Workload: "sleep"})
	if err != nil {
		return nil, err
	}
	return r.Summary(), nil
}

ctx := cell.Context()
a, err := serve(ctx, "concurrent", concurrent)
if err != nil {
	panic(err)
}
b, err := serve(ctx, "one at a time", serialised)
if err != nil {
	panic(err)
}
results, err := frame.Concat("your servers: burst of 10", a, b)
if err != nil {
	panic(err)
}
if yourURL != "" {
	var yours *metrics.Result
	yours, err = load.Run(ctx, load.Target{URL: yourURL}, load.Burst{N: 10}, load.Options{Strategy: "your server", Workload: yourURL})
	if err != nil {
		panic(err)
	}
	if results, err = frame.Concat(results.Name, results, yours.Summary()); err != nil {
		panic(err)
	}
	fmt.Printf("your server at %s: %d requests, %d errors\\n", yourURL, yours.Count(), yours.Errors())
}
sum, err := results.Select("strategy", "count", "errors", "elapsed_s", "avg_ms", "max_ms")
if err != nil {
	panic(err)
}
sum"""),
 (C, """charts.Latency(results)"""),
 (M, """## Shape check: the concurrent server takes ≈ 1 wait, the serialised one ≈ 10

Your own server's row is shown, not judged."""),
 (C, """var failed []string
for i := 0; i < results.Len(); i++ {
	name := results.Text("strategy", i)
	if name == "your server" {
		continue
	}
	w := results.Float("elapsed_s", i) / wait.Seconds()
	lo, hi := 0.9, 1.5
	if name == "one at a time" {
		lo, hi = 9.0, 12.5
	}
	ok := w >= lo && w <= hi && results.Float("errors", i) == 0
	fmt.Printf("%-14s %6.2f waits (want %.1f–%.1f): %v\\n", name, w, lo, hi, ok)
	if !ok {
		failed = append(failed, name)
	}
}
if len(failed) > 0 {
	panic(fmt.Sprintf("the shape did NOT hold for %v", failed))
}
fmt.Println("Shape held: the concurrent server answers the burst in one wait, the serialised one in ten.")"""),
])
