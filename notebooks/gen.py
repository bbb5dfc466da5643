#!/usr/bin/env python3
"""Generates the seed notebooks (nbformat 4.5, no outputs). Run: python3 notebooks/gen.py"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))

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
    with open(os.path.join(HERE, name + ".ipynb"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")

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
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/charts"
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
 (M, """## Shape check

Does the source's shape hold? `/async-block` ≈ 10 waits, the others ≈ 1 wait, and 100 concurrent
`/sync-sleep` requests ≈ 3 waits. The cell fails when it does not."""),
 (C, """var failed []string
for i := 0; i < measured.Len(); i++ {
	name, w := measured.Text("strategy", i), measured.Float("waits", i)
	lo, hi := 0.9, 2.0
	if name == "/async-block" {
		lo, hi = 9.0, 12.5
	}
	ok := w >= lo && w <= hi && measured.Float("errors", i) == 0
	fmt.Printf("%-13s %5.2f waits (want %.1f–%.1f): %v\\n", name, w, lo, hi, ok)
	if !ok {
		failed = append(failed, name)
	}
}
okWaves := waves >= 2.7 && waves <= 4.5
fmt.Printf("%-13s %5.2f waits (want 2.7–4.5): %v\\n", "100 x /sync", waves, okWaves)
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
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/charts"
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
 (M, """## Shape check

I/O: 1w x 5t ≈ 2 waits, 1w x 10t and FastAPI ≈ 1 wait. CPU: one worker serialises the ten burns
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
for i := 0; i < ioMeasured.Len(); i++ {
	name := ioMeasured.Text("strategy", i)
	lo, hi := 0.9, 1.6
	if name == "flask 1w x 5t" {
		lo, hi = 1.8, 2.6
	}
	check("I/O "+name+" waits", ioMeasured.Float("waits", i), lo, hi)
}
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
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/workload"
	"github.com/conclab/conclab/charts"
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
 (M, """## Shape check

Sequential ≈ 100 waits; a pool of 30 ≈ 4 waves; a pool of 100 and all-at-once ≈ 1 wait.
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
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/charts"
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
 (M, """## Shape check

asyncio is the slowest and blocks its loop for a whole conversion; ThreadPool is within 2x of sync;
nothing is dramatically (more than 3x) faster than sync. Unlike the source, ProcessPool usually comes out
somewhat *faster* than sync here (1.5–2x): the modelled pipe carries no 1.4 MB image, so it pays
little IPC, and its workers hold no GIL — a difference worth knowing, not hiding."""),
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
r := avg["ThreadPool"] / avg["sync"]
check("ThreadPool ≈ sync (avg ratio 0.5–2)", r >= 0.5 && r <= 2, r)
best := avg["sync"]
for _, v := range avg {
	if v < best {
		best = v
	}
}
check("nothing > 3x faster than sync (sync / best)", avg["sync"]/best <= 3, avg["sync"]/best)
if len(failed) > 0 {
	panic(fmt.Sprintf("source 000's shape did NOT hold for %v", failed))
}
fmt.Println("Source 000's shape held: CPU work on the event loop makes asyncio the slowest; threads and processes are no dramatic win over sync.")"""),
])

nb("go-native", [
 (M, """# Go-native strategies

The same lab, with Go's own server styles instead of the Python model: a goroutine per request,
a semaphore of 10, and one request at a time. 100 requests arrive at once, each waiting on I/O
(100 ms; 20 ms with `--quick`). Arithmetic: goroutines ≈ 1 wait, bounded 10 ≈ 10 waves, serial ≈ 100
waits; then a CPU burst shows goroutines use every core, with no GIL."""),
 (C, """import (
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
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
sum, err := res.Summary.Select("strategy", "count", "errors", "elapsed_s", "avg_ms", "max_ms")
if err != nil {
	panic(err)
}
sum"""),
 (C, """charts.Latency(res.Summary)"""),
 (M, "## Shape check"),
 (C, """want := map[string][2]float64{"goroutines": {0.9, 3}, "bounded 10": {9, 14}, "serial": {90, 130}}
var failed []string
for i := 0; i < res.Summary.Len(); i++ {
	name := res.Summary.Text("strategy", i)
	w := res.Summary.Float("elapsed_s", i) / wait.Seconds()
	lim := want[name]
	ok := w >= lim[0] && w <= lim[1] && res.Summary.Float("errors", i) == 0
	fmt.Printf("%-11s %7.2f waits (want %.1f–%.1f): %v\\n", name, w, lim[0], lim[1], ok)
	if !ok {
		failed = append(failed, name)
	}
}
if len(failed) > 0 {
	panic(fmt.Sprintf("the Go-native shape did NOT hold for %v", failed))
}
fmt.Println("Shape held: goroutines take one wait, a semaphore of 10 ten waves, serial a hundred waits.")"""),
])

nb("byo-server", [
 (M, """# Bring your own server

`bench/load` drives any HTTP server on loopback. Replace the URL with your own app's
(e.g. `http://127.0.0.1:8000/work` for a uvicorn you started). So that this notebook runs
headless, it starts two small servers itself: one handles requests concurrently, the other
behind a mutex — one at a time, like the `/async-block` bug. Each request waits 500 ms
(100 ms with `--quick`); 10 requests arrive at once."""),
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
sum, err := results.Select("strategy", "count", "errors", "elapsed_s", "avg_ms", "max_ms")
if err != nil {
	panic(err)
}
sum"""),
 (C, """charts.Latency(results)"""),
 (M, "## Shape check: the concurrent server takes ≈ 1 wait, the serialised one ≈ 10"),
 (C, """var failed []string
for i := 0; i < results.Len(); i++ {
	name := results.Text("strategy", i)
	w := results.Float("elapsed_s", i) / wait.Seconds()
	lo, hi := 0.9, 2.0
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
