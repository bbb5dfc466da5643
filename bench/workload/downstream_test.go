package workload_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/workload"
)

func startDownstream(t *testing.T, latency time.Duration) *workload.Downstream {
	t.Helper()
	d, err := workload.StartDownstream(context.Background(), latency)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestFanOutModes: 10 calls to a 100 ms downstream take ≈ 1 s one after
// another, ≈ 0.2 s through 5 workers (two waves), ≈ 0.1 s all at once.
func TestFanOutModes(t *testing.T) {
	// Not parallel with the package's CPU-heavy tests: timing-sensitive.
	const latency = 100 * time.Millisecond
	tests := []struct {
		mode     string
		workers  int
		waves    int
		wantPeak int64
	}{
		{workload.FanSequential, 0, 10, 1},
		{workload.FanPool, 5, 2, 5},
		{workload.FanPool, 50, 1, 10}, // clamped to 10
		{workload.FanAll, 0, 1, 10},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s-%d", tc.mode, tc.workers), func(t *testing.T) {
			t.Parallel()
			d := startDownstream(t, latency)
			res, err := workload.FanOut{URL: d.HealthURL(), Calls: 10, Mode: tc.mode, Workers: tc.workers}.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := time.Duration(tc.waves) * latency
			if res.Elapsed < want*9/10 || res.Elapsed > (want*11/10+100*time.Millisecond)*raceSlack {
				t.Errorf("elapsed %v; want ≈ %v (%d waves of %v)", res.Elapsed, want, tc.waves, latency)
			}
			if res.Errors != 0 || d.Calls() != 10 || res.Calls.Len() != 10 {
				t.Errorf("errors %d, server saw %d calls, frame %d rows; want 0, 10, 10", res.Errors, d.Calls(), res.Calls.Len())
			}
			if got := d.PeakInFlight(); got != tc.wantPeak {
				t.Errorf("peak in flight %d; want %d", got, tc.wantPeak)
			}
			for i, l := range res.Calls.Floats("latency_ms") {
				if l < 90 {
					t.Errorf("call %d took %.1f ms; want >= 90 (the downstream's latency)", i, l)
				}
			}
			s := res.Summary()
			if s.Len() != 1 || s.Float("count", 0) != 10 || s.Float("min_ms", 0) < 90 || s.Text("mode", 0) != tc.mode {
				t.Errorf("summary:\n%s", s)
			}
		})
	}
}

func TestDownstreamSetLatencyAndQuery(t *testing.T) {
	t.Parallel()
	d := startDownstream(t, 0)
	// A latency long enough that ?ms=0's override is told from it by
	// arithmetic, not by how loaded the machine is.
	d.SetLatency(1500 * time.Millisecond)
	if lat, err := workload.CallDownstream(context.Background(), nil, d.HealthURL()); err != nil || lat < 1400*time.Millisecond {
		t.Errorf("call with 1.5s latency = %v, %v", lat, err)
	}
	if lat, err := workload.CallDownstream(context.Background(), nil, d.HealthURL()+"?ms=0"); err != nil || lat > 750*time.Millisecond {
		t.Errorf("call with ?ms=0 = %v, %v; want well under the 1.5 s latency", lat, err)
	}
	if _, err := workload.CallDownstream(context.Background(), nil, d.HealthURL()+"?ms=abc"); err == nil || !contains(err.Error(), "400") {
		t.Errorf("?ms=abc err = %v; want a 400", err)
	}
	if _, err := workload.CallDownstream(context.Background(), nil, d.URL()+"/nope"); err == nil || !contains(err.Error(), "404") {
		t.Errorf("/nope err = %v; want a 404", err)
	}
	d.SetLatency(-time.Second)
	if d.Latency() != 0 {
		t.Errorf("SetLatency(-1s) left %v; want 0", d.Latency())
	}
}

func TestDownstreamCloseAnswersWaitingCalls(t *testing.T) {
	t.Parallel()
	d, err := workload.StartDownstream(context.Background(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := workload.CallDownstream(context.Background(), nil, d.HealthURL())
		done <- err
	}()
	for d.Calls() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Close took %v with a call waiting", el)
	}
	if err := <-done; err == nil {
		t.Error("waiting call succeeded after Close; want 503 or a connection error")
	}
	if _, err := http.Get(d.HealthURL()); err == nil {
		t.Error("server still answers after Close")
	}
}

func TestDownstreamContextCancelCloses(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := workload.StartDownstream(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.Now().Add(3 * time.Second)
	for {
		resp, err := http.Get(d.HealthURL())
		if err != nil {
			break
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("downstream still serving 3s after its context was cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
}

func TestFanOutTimeoutBoundsRun(t *testing.T) {
	t.Parallel()
	d := startDownstream(t, 5*time.Second)
	start := time.Now()
	res, err := workload.FanOut{URL: d.HealthURL(), Calls: 3, Mode: workload.FanSequential, Timeout: 200 * time.Millisecond}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("run with a 200ms timeout took %v", el)
	}
	if res.Errors != 3 || !contains(res.Calls.Text("error", 0), "timeout") {
		t.Errorf("errors %d, first error %q; want 3 timeouts", res.Errors, res.Calls.Text("error", 0))
	}
}

func TestFanOutBadInput(t *testing.T) {
	t.Parallel()
	d := startDownstream(t, 0)
	tests := []struct {
		name string
		f    workload.FanOut
		want string
	}{
		{"zero calls", workload.FanOut{URL: d.HealthURL()}, "calls = 0"},
		{"too many", workload.FanOut{URL: d.HealthURL(), Calls: workload.MaxFanOutCalls + 1}, "calls = 100001"},
		{"mode", workload.FanOut{URL: d.HealthURL(), Calls: 1, Mode: "bulk"}, `mode "bulk"`},
		{"pool without workers", workload.FanOut{URL: d.HealthURL(), Calls: 1, Mode: workload.FanPool}, "workers >= 1"},
		{"not loopback", workload.FanOut{URL: "http://192.0.2.1/health", Calls: 1}, "loopback"},
		{"scheme", workload.FanOut{URL: "ftp://127.0.0.1/x", Calls: 1}, "want http"},
		{"negative timeout", workload.FanOut{URL: d.HealthURL(), Calls: 1, Timeout: -1}, "timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := tc.f.Run(context.Background()); err == nil || !contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want one containing %q", err, tc.want)
			}
		})
	}
	if d.Calls() != 0 {
		t.Errorf("bad settings made %d calls; want none", d.Calls())
	}
	for _, lat := range []time.Duration{-1, workload.MaxDownstreamLatency + 1} {
		if _, err := workload.StartDownstream(context.Background(), lat); err == nil {
			t.Errorf("StartDownstream(%v) succeeded", lat)
		}
	}
	if _, err := workload.CallDownstream(context.Background(), nil, "http://10.0.0.1/"); err == nil {
		t.Error("CallDownstream to a private address succeeded; want refused before dialing")
	}
}

// TestDownstreamLeavesNothingRunning: after Close and a finished fan-out,
// no goroutine is left (servers, connections, workers).
func TestDownstreamLeavesNothingRunning(t *testing.T) {
	base := runtime.NumGoroutine()
	d, err := workload.StartDownstream(context.Background(), 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{workload.FanSequential, workload.FanPool, workload.FanAll} {
		if _, err := (workload.FanOut{URL: d.HealthURL(), Calls: 20, Mode: mode, Workers: 4}).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	waitGoroutines(t, base)
}

func TestCallDownstreamCancelled(t *testing.T) {
	t.Parallel()
	d := startDownstream(t, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := workload.CallDownstream(ctx, nil, d.HealthURL()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want deadline exceeded", err)
	}
}

func ExampleFanOut() {
	// Source 002: a downstream /health that takes 20 ms, called 10 times.
	d, err := workload.StartDownstream(context.Background(), 20*time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	for _, f := range []workload.FanOut{
		{URL: d.HealthURL(), Calls: 10, Mode: workload.FanSequential},
		{URL: d.HealthURL(), Calls: 10, Mode: workload.FanPool, Workers: 5},
		{URL: d.HealthURL(), Calls: 10, Mode: workload.FanAll},
	} {
		res, err := f.Run(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Mode, res.Workers, res.Calls.Len(), res.Errors)
	}
	// Output:
	// sequential 1 10 0
	// pool 5 10 0
	// all 10 10 0
}

func ExampleStartDownstream() {
	d, err := workload.StartDownstream(context.Background(), 5*time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	lat, err := workload.CallDownstream(context.Background(), nil, d.HealthURL())
	fmt.Println(lat >= 5*time.Millisecond, err, d.Calls())
	// Output: true <nil> 1
}

func ExampleEmails() {
	fmt.Println(workload.Emails(3), len(workload.Emails(100)))
	// Output: [A@A B@B C@C] 26
}

// TestFanOutRecordsThroughMetrics: the summary is bench/metrics' — every
// call counted whatever its outcome, rps over all of them, a 400 counted
// as a 4xx error with a latency, the percentiles ordered.
func TestFanOutRecordsThroughMetrics(t *testing.T) {
	t.Parallel()
	d := startDownstream(t, 5*time.Millisecond)
	res, err := workload.FanOut{URL: d.HealthURL() + "?ms=abc", Calls: 6, Mode: workload.FanPool, Workers: 3}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary()
	if got := s.Float("count", 0); got != 6 {
		t.Errorf("count %v; want 6", got)
	}
	if s.Float("errors", 0) != 6 || s.Float("errors_4xx", 0) != 6 || res.Errors != 6 {
		t.Errorf("errors %v, errors_4xx %v, Errors %d; want 6 each", s.Float("errors", 0), s.Float("errors_4xx", 0), res.Errors)
	}
	if rps, want := s.Float("rps", 0), 6/s.Float("elapsed_s", 0); rps != want {
		t.Errorf("rps %v; want count/elapsed_s = %v", rps, want)
	}
	if !(s.Float("min_ms", 0) <= s.Float("med_ms", 0) && s.Float("med_ms", 0) <= s.Float("p95_ms", 0) && s.Float("p95_ms", 0) <= s.Float("max_ms", 0)) {
		t.Errorf("percentiles out of order:\n%s", s)
	}
	if s.Text("strategy", 0) != "pool 3" || s.Text("load", 0) != "6 calls" || s.Float("workers", 0) != 3 {
		t.Errorf("labels:\n%s", s)
	}
}

// CallDownstream makes one call and times it; a 4xx or 5xx answer is an
// error naming the status.
func ExampleCallDownstream() {
	ctx := context.Background()
	down, err := workload.StartDownstream(ctx, 10*time.Millisecond)
	if err != nil {
		panic(err)
	}
	defer down.Close()
	took, err := workload.CallDownstream(ctx, nil, down.HealthURL())
	fmt.Println(took >= 10*time.Millisecond, err)
	_, err = workload.CallDownstream(ctx, nil, down.HealthURL()+"?ms=oops")
	fmt.Println(err != nil)
	// Output:
	// true <nil>
	// true
}
