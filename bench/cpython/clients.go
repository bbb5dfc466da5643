package cpython

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/metrics"
)

// Client modes of source 002.
const (
	Sequential = "sequential" // requests.get in a for loop
	Threads    = "threads"    // ThreadPoolExecutor(max_workers) + as_completed
	AsyncIO    = "asyncio"    // aiohttp.ClientSession + asyncio.gather
)

// Client modes of source 004.
const (
	SyncClient      = "sync"      // a for loop of requests.post
	FakeAsyncClient = "fakeasync" // requests.post inside gathered async defs
	AiohttpClient   = "aiohttp"   // aiohttp posts, gathered
)

// clientFrame records a client script's requests through bench/metrics
// (see record.go) and returns the summary frame: metrics' summary columns
// (strategy, workload "client", load, count, errors, elapsed_s, rps, the
// latency statistics, ...), then client, the script's own figures that it
// printed (threads, cpu_s, rss_mb, rows, order, in_order) and error_kinds,
// described with env.
func clientFrame(env *Env, script, name, strategy, client, load string, m map[string]any) (*frame.Frame, error) {
	samples, kinds, err := clientRequests(script, m)
	if err != nil {
		return nil, err
	}
	el, ok := m["elapsed_s"].(float64)
	if !ok || el < 0 {
		return nil, fmt.Errorf("cpython: %s printed no elapsed_s", script)
	}
	res, err := recordClient(samples, time.Duration(el*float64(time.Second)), map[string]string{
		metrics.LabelStrategy: strategy, metrics.LabelWorkload: "client", metrics.LabelLoad: load})
	if err != nil {
		return nil, err
	}
	f := res.Summary()
	f.Name = name
	f = f.With("client", client)
	out := extend(f, func(_ int, r frame.Row) {
		for _, k := range []string{"threads", "cpu_s", "rss_mb", "rows"} {
			if v, ok := m[k].(float64); ok {
				r[k] = v
			}
		}
		if v, ok := m["order"].(string); ok {
			r["order"] = v
		}
		if v, ok := m["in_order"].(bool); ok {
			r["in_order"] = v
		}
		r["error_kinds"] = strings.Join(kinds, ", ")
	})
	return env.Describe(out), nil
}

func clientEnv(ctx context.Context, opts Options, mods ...string) (*Env, error) {
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	return env, env.Require(mods...)
}

// Bench001 runs source 001's bench.py: n GETs of url at once from one
// httpx.AsyncClient, timing the whole batch. url is the full URL, e.g.
// srv.URL()+"/sync-sleep?s=0.2". The frame's row has strategy set to
// strategy, elapsed_s (the batch), the latency summary and threads (the
// distinct server threads that answered).
func Bench001(ctx context.Context, opts Options, strategy, url string, n int) (*frame.Frame, error) {
	if n <= 0 || n > 10000 {
		return nil, fmt.Errorf("cpython: Bench001: n must be in 1..10000, got %d", n)
	}
	env, err := clientEnv(ctx, opts, "httpx")
	if err != nil {
		return nil, err
	}
	m, err := RunScript(ctx, opts, "bench001.py", "--path", url, "--n", strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	return clientFrame(env, "bench001.py", "source 001 bench", strategy, "httpx gather", "burst "+strconv.Itoa(n), m)
}

// Client002Label is the source's name for a client of source 002.
func Client002Label(mode string, workers int) string {
	switch mode {
	case Sequential:
		return "sequential (requests)"
	case Threads:
		return "ThreadPoolExecutor " + strconv.Itoa(workers)
	case AsyncIO:
		return "asyncio + aiohttp"
	}
	return mode
}

// RunClient002 runs one of source 002's health-check clients as a real
// Python process (client002.py: requests in a loop, a ThreadPoolExecutor of
// c.Workers, or aiohttp gathered) making c.N checks of url. The row, from
// bench/metrics, adds cpu_s and rss_mb of the client process.
func RunClient002(ctx context.Context, opts Options, url string, c Client002) (*frame.Frame, error) {
	if c.N <= 0 || c.N > 10000 {
		return nil, fmt.Errorf("cpython: RunClient002: N must be in 1..10000, got %d", c.N)
	}
	mods := []string{"requests"}
	switch c.Mode {
	case Sequential:
	case Threads:
		if c.Workers <= 0 || c.Workers > 1000 {
			return nil, fmt.Errorf("cpython: RunClient002: workers must be in 1..1000, got %d", c.Workers)
		}
	case AsyncIO:
		mods = []string{"aiohttp"}
	default:
		return nil, fmt.Errorf("cpython: RunClient002: unknown mode %q (want %q, %q or %q)", c.Mode, Sequential, Threads, AsyncIO)
	}
	env, err := clientEnv(ctx, opts, mods...)
	if err != nil {
		return nil, err
	}
	m, err := RunScript(ctx, opts, "client002.py", "--url", url, "--mode", c.Mode,
		"--workers", strconv.Itoa(max(c.Workers, 1)), "--n", strconv.Itoa(c.N))
	if err != nil {
		return nil, err
	}
	label := c.Label()
	return clientFrame(env, "client002.py", "source 002 clients", label, label, strconv.Itoa(c.N)+" checks", m)
}

// Client004Label is the source's name for a client of source 004.
func Client004Label(mode string) string {
	switch mode {
	case SyncClient:
		return "sync client"
	case FakeAsyncClient:
		return "async def + requests"
	case AiohttpClient:
		return "aiohttp client"
	}
	return mode
}

// Client004 runs one of source 004's clients against base (a server running
// App004): it empties the table, posts n users (A@A ...), then reads the
// table. The row adds order (first letters in table order), in_order (1 when
// the rows landed as sent) and rows.
func Client004(ctx context.Context, opts Options, base, mode string, n int) (*frame.Frame, error) {
	if n <= 0 || n > 1000 {
		return nil, fmt.Errorf("cpython: Client004: n must be in 1..1000, got %d", n)
	}
	mods := []string{"requests"}
	switch mode {
	case SyncClient, FakeAsyncClient:
	case AiohttpClient:
		mods = append(mods, "aiohttp")
	default:
		return nil, fmt.Errorf("cpython: Client004: unknown mode %q (want %q, %q or %q)", mode, SyncClient, FakeAsyncClient, AiohttpClient)
	}
	env, err := clientEnv(ctx, opts, mods...)
	if err != nil {
		return nil, err
	}
	m, err := RunScript(ctx, opts, "client004.py", "--base", base, "--mode", mode, "--n", strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	label := Client004Label(mode)
	return clientFrame(env, "client004.py", "source 004 clients", label, label, strconv.Itoa(n)+" posts", m)
}
