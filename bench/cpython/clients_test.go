package cpython

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

func TestOutcomeOf(t *testing.T) {
	t.Parallel()
	for kind, want := range map[string]metrics.Outcome{
		"": metrics.OK, "http404": metrics.Status4xx, "http503": metrics.Status5xx, "http301": metrics.Other,
		"ReadTimeout": metrics.Timeout, "ServerTimeoutError": metrics.Timeout, "ConnectError": metrics.Conn,
		"ClientConnectorError": metrics.Conn, "JSONDecodeError": metrics.Other,
	} {
		if got := outcomeOf(kind); got != want {
			t.Errorf("outcomeOf(%q) = %v; want %v", kind, got, want)
		}
	}
}

// A script's output that is not what the scripts print is an error, not a
// frame of zeros.
func TestClientRequestsBadInput(t *testing.T) {
	t.Parallel()
	for name, m := range map[string]map[string]any{
		"no list":  {"elapsed_s": 1.0},
		"not pair": {"requests": []any{[]any{1.0}}},
		"negative": {"requests": []any{[]any{-1.0, ""}}},
		"kind":     {"requests": []any{[]any{1.0, 3.0}}},
	} {
		if _, _, err := clientRequests("x.py", m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Source 001's httpx client's requests go through bench/metrics: every
// request counted, rps over all of them, a 404 a 4xx error with its
// latency, and the pool the server used in threads.
func TestBench001RecordsThroughMetrics(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "httpx")
	srv := startServer(t, App001(50*time.Millisecond))
	ctx := context.Background()
	f, err := Bench001(ctx, Options{}, "/async-ok", srv.URL()+AsyncOK+"?s=0.05", 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", f)
	if f.Float("count", 0) != 5 || f.Float("errors", 0) != 0 || f.Float("threads", 0) != 1 {
		t.Errorf("count %v errors %v threads %v; want 5, 0, 1", f.Float("count", 0), f.Float("errors", 0), f.Float("threads", 0))
	}
	if rps := f.Float("rps", 0); math.Abs(rps-5/f.Float("elapsed_s", 0)) > 1e-9 {
		t.Errorf("rps %v; want count / elapsed_s", rps)
	}
	if f.Float("min_ms", 0) < 50 || f.Float("min_ms", 0) > f.Float("p95_ms", 0) || f.Float("p95_ms", 0) > f.Float("max_ms", 0) {
		t.Errorf("latencies out of order or below the 50 ms wait:\n%v", f)
	}
	if f.Text("python", 0) == "" || f.Text("client", 0) != "httpx gather" {
		t.Errorf("environment or client columns missing:\n%v", f)
	}
	g, err := Bench001(ctx, Options{}, "404", srv.URL()+"/nope", 3)
	if err != nil {
		t.Fatal(err)
	}
	if g.Float("count", 0) != 3 || g.Float("errors_4xx", 0) != 3 || g.Text("error_kinds", 0) != "http404" || math.IsNaN(g.Float("avg_ms", 0)) {
		t.Errorf("404s:\n%v", g)
	}
}
