package cpython

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/conclab/conclab/bench/frame"
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

// clientFrame turns a client script's JSON into a one-row summary frame
// described with env.
func clientFrame(env *Env, name, strategy, client, load string, m map[string]any) *frame.Frame {
	var lat []float64
	if xs, ok := m["latencies_ms"].([]any); ok {
		for _, x := range xs {
			if v, ok := x.(float64); ok {
				lat = append(lat, v)
			}
		}
	}
	r := latencyRow(lat)
	r["strategy"], r["client"], r["load"] = strategy, client, load
	num := func(k string) (float64, bool) { v, ok := m[k].(float64); return v, ok }
	if v, ok := num("count"); ok {
		r["count"] = v
	}
	if v, ok := num("errors"); ok {
		r["errors"] = v
	}
	if v, ok := num("elapsed_s"); ok {
		r["elapsed_s"] = v
		if c, ok := num("count"); ok && v > 0 {
			r["rps"] = c / v
		}
	}
	for _, k := range []string{"threads", "cpu_s", "rss_mb", "rows"} {
		if v, ok := num(k); ok {
			r[k] = v
		}
	}
	if v, ok := m["order"].(string); ok {
		r["order"] = v
	}
	if v, ok := m["in_order"].(bool); ok {
		r["in_order"] = v
	}
	if ks, ok := m["error_kinds"].([]any); ok && len(ks) > 0 {
		var kinds []string
		for _, k := range ks {
			kinds = append(kinds, fmt.Sprint(k))
		}
		r["error_kinds"] = strings.Join(kinds, ", ")
	}
	f := newSummaryFrame(name)
	f.MustAppend(r)
	return env.Describe(f)
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
	return clientFrame(env, "source 001 bench", strategy, "httpx gather", "burst "+strconv.Itoa(n), m), nil
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

// Client002 runs one of source 002's health-check clients (mode Sequential,
// Threads with workers, or AsyncIO) making n checks of url. The row adds
// cpu_s and rss_mb of the client process.
func Client002(ctx context.Context, opts Options, url, mode string, workers, n int) (*frame.Frame, error) {
	if n <= 0 || n > 10000 {
		return nil, fmt.Errorf("cpython: Client002: n must be in 1..10000, got %d", n)
	}
	mods := []string{"requests"}
	switch mode {
	case Sequential:
	case Threads:
		if workers <= 0 || workers > 1000 {
			return nil, fmt.Errorf("cpython: Client002: workers must be in 1..1000, got %d", workers)
		}
	case AsyncIO:
		mods = []string{"aiohttp"}
	default:
		return nil, fmt.Errorf("cpython: Client002: unknown mode %q (want %q, %q or %q)", mode, Sequential, Threads, AsyncIO)
	}
	env, err := clientEnv(ctx, opts, mods...)
	if err != nil {
		return nil, err
	}
	m, err := RunScript(ctx, opts, "client002.py", "--url", url, "--mode", mode,
		"--workers", strconv.Itoa(max(workers, 1)), "--n", strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	label := Client002Label(mode, workers)
	return clientFrame(env, "source 002 clients", label, label, strconv.Itoa(n)+" checks", m), nil
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
	return client004(ctx, opts, base, mode, n, "")
}

// client004 is Client004 adding query (e.g. "delay=0") to every POST.
func client004(ctx context.Context, opts Options, base, mode string, n int, query string) (*frame.Frame, error) {
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
	m, err := RunScript(ctx, opts, "client004.py", "--base", base, "--mode", mode, "--n", strconv.Itoa(n), "--query", query)
	if err != nil {
		return nil, err
	}
	label := Client004Label(mode)
	return clientFrame(env, "source 004 clients", label, label, strconv.Itoa(n)+" posts", m), nil
}
