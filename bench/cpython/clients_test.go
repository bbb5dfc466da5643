package cpython

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/frame"
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

// A client script's requests go through bench/metrics: every request
// counted, rps over all of them, a 404 a 4xx error with its latency, and
// the script's own figures copied.
func TestClientRecordsThroughMetrics(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	srv := startServer(t, testApp(50*time.Millisecond))
	ctx := context.Background()
	run := func(path string, n int) *frame.Frame {
		t.Helper()
		f, err := Client{Script: Script{Files: testFiles(), Name: "clienttest.py", Args: []string{"--url", srv.URL() + path, "--n", strconv.Itoa(n)}},
			Label: path, Load: "sequential " + strconv.Itoa(n)}.Run(ctx, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := run("/awaited?s=0.05", 5)
	if f.Float("count", 0) != 5 || f.Float("errors", 0) != 0 || f.Float("threads", 0) != 1 {
		t.Errorf("count %v errors %v threads %v; want 5, 0, 1", f.Float("count", 0), f.Float("errors", 0), f.Float("threads", 0))
	}
	if rps := f.Float("rps", 0); math.Abs(rps-5/f.Float("elapsed_s", 0)) > 1e-9 {
		t.Errorf("rps %v; want count / elapsed_s", rps)
	}
	if f.Float("min_ms", 0) < 50 || f.Float("min_ms", 0) > f.Float("p95_ms", 0) || f.Float("p95_ms", 0) > f.Float("max_ms", 0) {
		t.Errorf("latencies out of order or below the 50 ms wait:\n%v", f)
	}
	if f.Text("python", 0) == "" || f.Text("client", 0) != "clienttest" || f.Text("strategy", 0) != "/awaited?s=0.05" {
		t.Errorf("environment, client or strategy columns:\n%v", f)
	}
	g := run("/nope", 3)
	if g.Float("count", 0) != 3 || g.Float("errors_4xx", 0) != 3 || g.Text("error_kinds", 0) != "http404" || math.IsNaN(g.Float("avg_ms", 0)) {
		t.Errorf("404s:\n%v", g)
	}
}
