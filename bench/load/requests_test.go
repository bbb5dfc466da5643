package load

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// Options.Requests sees every request once, in batches of at most
// requestBatch, with the fields the raw results promise.
func TestRequestsRaw(t *testing.T) {
	t.Parallel()
	srv := failingServer(t, time.Millisecond, 7)
	for _, tc := range []struct {
		name  string
		model Model
		vus   int
		open  bool
	}{
		{"closed", Closed{VUs: 3, Total: 500}, 3, false},
		{"closed goroutines", Closed{VUs: 3, Total: 500}, 3, false},
		{"open", Open{Rate: 400, Duration: 500 * time.Millisecond, MaxInFlight: 5}, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var rows []Request
			calls, biggest := 0, 0
			res, err := Run(context.Background(), Target{URL: srv.URL}, tc.model, Options{goroutinesOnly: strings.HasSuffix(tc.name, "goroutines"), Requests: func(b []Request) error {
				mu.Lock()
				defer mu.Unlock()
				calls++
				biggest = max(biggest, len(b))
				rows = append(rows, b...)
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if int64(len(rows)) != res.Count()+res.Outcomes(metrics.Interrupted) || biggest > requestBatch || calls < len(rows)/requestBatch {
				t.Fatalf("%d rows in %d batches (largest %d); want %d, batches ≤ %d", len(rows), calls, biggest, res.Count(), requestBatch)
			}
			errs, conns := 0, map[int64]bool{}
			for _, r := range rows {
				if r.Worker < 0 || r.Worker >= tc.vus || r.Conn < 1 || r.Conn > res.Connections {
					t.Fatalf("row %+v: worker or connection out of range (%d workers, %d connections)", r, tc.vus, res.Connections)
				}
				conns[r.Conn] = true
				switch r.Status {
				case 200:
					if r.Outcome != metrics.OK || r.Err != nil {
						t.Fatalf("row %+v: a 200 that is not OK", r)
					}
				case 500:
					errs++
					if r.Outcome != metrics.Status5xx {
						t.Fatalf("row %+v: a 500 that is not 5xx", r)
					}
				default:
					t.Fatalf("row %+v: status %d", r, r.Status)
				}
				if r.Latency < time.Millisecond || r.Uncorrected < time.Millisecond || r.BytesIn == 0 || r.BytesOut == 0 {
					t.Fatalf("row %+v: latency, bytes missing", r)
				}
				if !tc.open && (!r.Intended.Equal(r.Start) || r.Latency != r.Uncorrected) {
					t.Fatalf("closed row %+v: intended != start", r)
				}
				if tc.open && (r.Start.Before(r.Intended) || r.Latency < r.Uncorrected || r.Intended.Before(res.Start)) {
					t.Fatalf("open row %+v: sent before due, or due before the run", r)
				}
			}
			if int64(errs) != res.Errors() || int64(len(conns)) != res.Connections {
				t.Errorf("%d 500s over %d connections in the rows; the result has %d errors, %d connections", errs, len(conns), res.Errors(), res.Connections)
			}
		})
	}
}

// A failing sink stops the run and is its error; requests went out, so
// the result is there.
func TestRequestsSinkError(t *testing.T) {
	t.Parallel()
	srv := sleepServer(t, 0)
	boom := errors.New("disk full")
	res, err := Run(context.Background(), Target{URL: srv.URL}, Closed{VUs: 2, Duration: time.Minute},
		Options{Requests: func([]Request) error { return boom }})
	if !errors.Is(err, boom) || res == nil || res.Elapsed > 30*time.Second || !hasWarning(res, "writing the raw results failed") {
		t.Errorf("err %v, result %v; want the sink's error, the run stopped early with a warning", err, res != nil)
	}
}

// OnStart comes once, before any interval, with the plan; OnInterval
// once per series row, in order, adding up to the result.
func TestLiveHooks(t *testing.T) {
	t.Parallel()
	srv := sleepServer(t, time.Millisecond)
	var mu sync.Mutex
	var plans []Plan
	var ends []time.Duration
	var n, errs int64
	final := 0
	res, err := Run(context.Background(), Target{URL: srv.URL}, Open{Rate: 200, Duration: 600 * time.Millisecond},
		Options{Interval: 100 * time.Millisecond, Labels: map[string]string{"machine": "ci"},
			OnStart: func(p Plan) { mu.Lock(); plans = append(plans, p); mu.Unlock() },
			OnInterval: func(c *metrics.Cut) {
				mu.Lock()
				defer mu.Unlock()
				if len(plans) != 1 {
					t.Errorf("an interval before OnStart")
				}
				ends = append(ends, c.Interval.Start+c.Interval.Length)
				n += c.Interval.N
				errs += c.Interval.Errors()
				if c.Total.N != n {
					t.Errorf("Total.N %d; the intervals so far add up to %d", c.Total.N, n)
				}
				if c.Final {
					final++
				}
			}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	p := plans[0]
	if len(plans) != 1 || p.Duration != 600*time.Millisecond || p.Requests != 120 || p.Gauge != "target_rps" || !p.Uncorrected ||
		p.Interval != 100*time.Millisecond || p.Labels["machine"] != "ci" || p.Protocol != "HTTP/1.1" || !p.Start.Equal(res.Start) {
		t.Errorf("plans %+v", plans)
	}
	if len(ends) < len(res.Intervals) || n != res.Count() || errs != res.Errors() || final > 1 {
		t.Errorf("%d intervals seen (%d final), %d requests; the result has %d rows, %d requests", len(ends), final, n, len(res.Intervals), res.Count())
	}
	for i := 1; i < len(ends); i++ {
		if ends[i] <= ends[i-1] {
			t.Errorf("intervals out of order: %v", ends)
		}
	}
}

// StartAt: the run waits for it and starts there; ctx cancels the wait;
// too far ahead is refused; a past one starts at once with a warning.
func TestRunStartAt(t *testing.T) {
	t.Parallel()
	srv := sleepServer(t, 0)
	at := time.Now().Add(300 * time.Millisecond)
	res, err := Run(context.Background(), Target{URL: srv.URL}, Sequential{N: 1}, Options{StartAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if time.Now().Before(at) || !res.Start.Equal(at) {
		t.Errorf("run started %v, ended before %v", res.Start, at)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	res, err = Run(ctx, Target{URL: srv.URL}, Sequential{N: 1}, Options{StartAt: time.Now().Add(time.Hour)})
	if err == nil || res != nil || time.Since(t0) > 5*time.Second {
		t.Errorf("cancelled wait: res=%v err=%v after %v; want nil result, an error, at once", res, err, time.Since(t0))
	}
	_, err = Run(context.Background(), Target{URL: srv.URL}, Sequential{N: 1}, Options{StartAt: time.Now().Add(48 * time.Hour)})
	if err == nil || !strings.Contains(err.Error(), "MaxStartDelay") {
		t.Errorf("StartAt 48h ahead: %v", err)
	}
	res, err = Run(context.Background(), Target{URL: srv.URL}, Sequential{N: 1}, Options{StartAt: time.Now().Add(-time.Second)})
	if err != nil || !hasWarning(res, "after StartAt") {
		t.Errorf("late start: err=%v warnings=%q; want a warning", err, res.Warnings)
	}
}
